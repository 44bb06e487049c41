local meta, labels, log, vkey, shardKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local cur = redis.call('HMGET', vkey, 'label', 'shard')
if not cur[1] then return 0 end
if cur[2] ~= ARGV[2] then return -1 end
redis.call('DEL', vkey)
redis.call('ZREM', labels, ARGV[1])
redis.call('ZREM', shardKey, ARGV[1])
for i = 6, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
redis.call('HINCRBY', meta, 'deleted', 1)
appendLog(meta, log, 'del', ARGV[1], cur[1], cur[2])
return 1
