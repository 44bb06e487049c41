local id, n, now = ARGV[2], ARGV[3], ARGV[4]
local e = redis.call('HMGET', KEYS[1], 'status', 'replayingN', 'replayingFrom', 'failedAt')
if e[1] ~= 'replaying' or e[2] ~= n then return 0 end
local back = e[3] or 'pending'
redis.call('HSET', KEYS[1], 'status', back, 'updatedAt', now)
redis.call('HDEL', KEYS[1], 'replayingN', 'replayingFrom', 'replayingAt')
moveStatus(id, 'replaying', back, e[4])
redis.call('INCR', KEYS[2])
return 1
