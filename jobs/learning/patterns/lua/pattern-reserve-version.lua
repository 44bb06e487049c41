local v = redis.call('HGET', KEYS[2], ARGV[1])
if not v then
  v = redis.call('INCR', KEYS[1])
  redis.call('HSET', KEYS[2], ARGV[1], v)
  if KEYS[3] then redis.call('SADD', KEYS[3], ARGV[2]) end
end
return tonumber(v)
