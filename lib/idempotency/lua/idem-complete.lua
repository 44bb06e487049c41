local key = KEYS[1]
local status = redis.call('HGET', key, 'status')
if not status then return 0 end
if status == 'completed' then return 2 end
redis.call('HSET', key, 'status', 'completed', 'response', ARGV[1], 'updatedAt', now)
redis.call('HDEL', key, 'lockUntil', 'error', 'retryable')
redis.call('PEXPIRE', key, ARGV[2])
return 1
