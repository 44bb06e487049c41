local id, n, now, item = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local e = redis.call('HMGET', KEYS[1], 'status', 'replayingN', 'replays', 'failedAt')
if e[1] ~= 'replaying' or e[2] ~= n then return 0 end
redis.call('HSET', KEYS[1], 'status', 'replayed', 'replayCount', n, 'replays', appendJson(e[3], item), 'updatedAt', now)
redis.call('HDEL', KEYS[1], 'replayingN', 'replayingFrom', 'replayingAt', 'discardedBy')
moveStatus(id, 'replaying', 'replayed', e[4])
redis.call('INCR', KEYS[2])
return 1
