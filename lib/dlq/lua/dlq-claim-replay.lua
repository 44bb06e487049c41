local id, now, staleBefore, allowed, expected, jobPrefix = ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6], ARGV[7]
local e = redis.call('HMGET', KEYS[1], 'status', 'replayCount', 'replayingN', 'replayingAt', 'failedAt')
if not e[1] then return {-1} end
local count = tonumber(e[2] or '0')
if e[1] == 'replaying' and tonumber(e[4] or '0') < staleBefore then
  redis.call('HSET', KEYS[1], 'replayingAt', now, 'updatedAt', now)
  return {1, tonumber(e[3])}
end
-- Replaying a replayed entry again must be deliberate: the caller names the count it saw.
if not listed(allowed, e[1]) or (e[1] == 'replayed' and expected == '')
  or (expected ~= '' and tonumber(expected) ~= count) then
  return {0, e[1], count}
end
local n = count + 1
-- The job this claim will enqueue, and from when its failure belongs to this record.
redis.call('HSET', KEYS[1], 'status', 'replaying', 'replayingN', n, 'replayingFrom', e[1], 'replayingAt', now, 'updatedAt', now,
  'reopenAfter', now, 'lastReplayJobId', jobPrefix .. n)
moveStatus(id, e[1], 'replaying', e[5])
redis.call('INCR', KEYS[2])
return {1, n}
