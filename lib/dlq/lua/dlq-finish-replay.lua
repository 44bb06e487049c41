local id, n, now, item = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local e = redis.call('HMGET', KEYS[1], 'status', 'replayingN', 'replays', 'failedAt')
if e[2] ~= n then return 0 end
-- The history item is kept even when the replay's job already failed and re-opened the
-- record (a fast failure can land before this step): that replay happened.
redis.call('HSET', KEYS[1], 'replayCount', n, 'replays', appendJson(e[3], item), 'updatedAt', now)
redis.call('HDEL', KEYS[1], 'replayingN', 'replayingFrom', 'replayingAt')
if e[1] == 'replaying' then
  redis.call('HSET', KEYS[1], 'status', 'replayed')
  redis.call('HDEL', KEYS[1], 'discardedBy')
  moveStatus(id, 'replaying', 'replayed', e[4])
end
redis.call('INCR', KEYS[2])
return 1
