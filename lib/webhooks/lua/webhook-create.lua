if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local fields = cjson.decode(ARGV[1])
for k, v in pairs(fields) do redis.call('HSET', KEYS[1], k, v) end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return 1
