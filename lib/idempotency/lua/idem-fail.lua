local key = KEYS[1]
local status = redis.call('HGET', key, 'status')
if not status then return 0 end
if status == 'completed' then return 2 end
redis.call('HSET', key, 'status', 'failed', 'error', ARGV[1], 'retryable', ARGV[2], 'updatedAt', now)
redis.call('HDEL', key, 'lockUntil')
redis.call('PEXPIRE', key, ARGV[3])
return 1
