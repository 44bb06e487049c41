if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local n = tonumber(ARGV[1])
for i = 2, 2 * n, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
for i = 2 + 2 * n, #ARGV do redis.call('HDEL', KEYS[1], ARGV[i]) end
return 1
