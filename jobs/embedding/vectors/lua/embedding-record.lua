redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if extra > 0 then
  local old = redis.call('ZRANGE', KEYS[2], 0, extra - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, extra - 1)
  redis.call('HDEL', KEYS[1], unpack(old))
end
return 1
