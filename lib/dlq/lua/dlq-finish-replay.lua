local id, n, now, item, doc, payload = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local e = redis.call('HMGET', KEYS[1], 'status', 'replayingN', 'replays', 'failedAt')
if e[2] ~= n then return 0 end
-- The history item is kept even when the replay's job already failed and re-opened the
-- record (a fast failure can land before this step): that replay happened.
redis.call('HSET', KEYS[1], 'replayCount', n, 'replays', appendJson(e[3], item), 'updatedAt', now)
redis.call('HDEL', KEYS[1], 'replayingN', 'replayingFrom', 'replayingAt')
if e[1] == 'replaying' then
  -- An edited replay's envelope is what the next replay starts from. A record the replay's
  -- job re-opened already holds that envelope, with its failure.
  if doc and doc ~= '' then redis.call('HSET', KEYS[1], 'doc', doc, 'payload', payload or '') end
  redis.call('HSET', KEYS[1], 'status', 'replayed')
  redis.call('HDEL', KEYS[1], 'discardedBy')
  moveStatus(id, 'replaying', 'replayed', e[4])
end
redis.call('INCR', KEYS[2])
return 1
