if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local fields = {}
for i = 2, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
for i = 2, #KEYS do redis.call('ZADD', KEYS[i], 0, ARGV[1]) end
return 1
