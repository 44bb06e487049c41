-- Appends one change to the namespace's log, capped near LOG_MAX_LENGTH (vector-scripts.ts) entries.
local function appendLog(meta, log, op, id, label, shard)
  local seq = redis.call('HINCRBY', meta, 'seq', 1)
  redis.call('XADD', log, 'MAXLEN', '~', 10000, seq .. '-0', 'op', op, 'id', id, 'label', label, 'shard', shard)
  return seq
end
