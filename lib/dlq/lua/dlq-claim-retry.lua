local id, now, item, jobId = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local e = redis.call('HMGET', KEYS[1], 'status', 'failedAt', 'replays', 'replayCount', 'failedJobId', 'originalJobId')
if not e[1] then return {-1} end
if e[1] ~= 'pending' then return {0, e[1]} end
-- Only the chain's latest failed job is retried in place: an older one (the original after a
-- replay of it failed) was replayed already, and would run again with the data it replaced.
local latest = e[5] or e[6]
if latest ~= jobId then return {0, 'replayed', latest} end
-- Retried in place: the same job id runs again, and a failure from now on re-opens this record.
redis.call('HSET', KEYS[1], 'status', 'replayed', 'updatedAt', now, 'reopenAfter', now, 'lastReplayJobId', jobId,
  'replays', appendJson(e[3], item), 'replayCount', tonumber(e[4] or '0') + 1)
moveStatus(id, 'pending', 'replayed', e[2])
redis.call('INCR', KEYS[2])
return {1}
