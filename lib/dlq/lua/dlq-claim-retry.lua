local id, now, item, jobId = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local e = redis.call('HMGET', KEYS[1], 'status', 'failedAt', 'replays', 'replayCount')
if not e[1] then return {-1} end
if e[1] ~= 'pending' then return {0, e[1]} end
-- Retried in place: the same job id runs again, and a failure from now on re-opens this record.
redis.call('HSET', KEYS[1], 'status', 'replayed', 'updatedAt', now, 'reopenAfter', now, 'lastReplayJobId', jobId,
  'replays', appendJson(e[3], item), 'replayCount', tonumber(e[4] or '0') + 1)
moveStatus(id, 'pending', 'replayed', e[2])
redis.call('INCR', KEYS[2])
return {1}
