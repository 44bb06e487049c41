local moved = 0
for i = 4, #KEYS do
  local id = ARGV[i + 1]
  if redis.call('HGET', KEYS[i], 'shard') == ARGV[1] then
    redis.call('HSET', KEYS[i], 'shard', ARGV[2])
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZADD', KEYS[3], 0, id)
    moved = moved + 1
  end
end
redis.call('HINCRBY', KEYS[1], ARGV[3], moved)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return moved
