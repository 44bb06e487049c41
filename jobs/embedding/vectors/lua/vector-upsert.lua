local meta, labels, log, vkey, shardKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local model = redis.call('HGET', meta, 'model')
if not model then
  redis.call('HSET', meta, 'model', ARGV[2], 'dimensions', ARGV[3], 'createdAt', ARGV[9])
  redis.call('HSETNX', meta, 'shards', ARGV[6])
  redis.call('HSETNX', meta, 'generation', 0)
  redis.call('HSETNX', meta, 'seq', 0)
  redis.call('HSETNX', meta, 'deleted', 0)
elseif model ~= ARGV[2] then
  if redis.call('ZCARD', labels) > 0 then
    return redis.error_reply('MODEL namespace holds vectors of model ' .. model .. '; reindex it to switch')
  end
  -- An empty namespace adopts the new model; a new generation makes indexes rebuild for its dimensions.
  redis.call('HSET', meta, 'model', ARGV[2], 'dimensions', ARGV[3])
  redis.call('HINCRBY', meta, 'generation', 1)
else
  local dims = redis.call('HGET', meta, 'dimensions')
  if not dims or dims == '' then
    redis.call('HSET', meta, 'dimensions', ARGV[3])
  elseif dims ~= ARGV[3] then
    return redis.error_reply('MODEL namespace vectors have ' .. dims .. ' dimensions, not ' .. ARGV[3])
  end
end
local old = redis.call('HMGET', vkey, 'label', 'shard', 'textHash', 'model', 'orgId', 'workspaceId')
if old[1] and ((old[5] or '') ~= ARGV[7] or (old[6] or '') ~= ARGV[8]) then
  return redis.error_reply('TENANT vector belongs to another tenant')
end
if old[1] and old[3] == ARGV[4] and old[4] == ARGV[2] then return {0, tonumber(old[1])} end
local fields = {}
for i = 10, #ARGV do fields[#fields + 1] = ARGV[i] end
local label, shard, status
if old[1] then
  label, shard, status = old[1], old[2], 2
  -- The ANN graph keeps the replaced node as a tombstone until the next rebuild.
  redis.call('HINCRBY', meta, 'deleted', 1)
else
  label, shard, status = redis.call('HINCRBY', meta, 'nextLabel', 1), ARGV[5], 1
  redis.call('ZADD', labels, label, ARGV[1])
  redis.call('ZADD', shardKey, 0, ARGV[1])
  for i = 6, #KEYS do redis.call('ZADD', KEYS[i], 0, ARGV[1]) end
  redis.call('HSET', vkey, 'createdAt', ARGV[9])
end
redis.call('HSET', vkey, 'label', label, 'shard', shard, unpack(fields))
appendLog(meta, log, 'add', ARGV[1], label, shard)
return {status, tonumber(label)}
