local key = KEYS[1]
local status = redis.call('HGET', key, 'status')
if not status then
  redis.call('HSET', key, 'status', 'processing', 'requestHash', ARGV[1], 'lockUntil', now + tonumber(ARGV[2]),
    'attempts', 1, 'createdAt', now, 'updatedAt', now)
  redis.call('PEXPIRE', key, ARGV[3])
  return {'started', '0', '1'}
end
local stored = redis.call('HGET', key, 'requestHash')
if stored ~= ARGV[1] then return {'conflict', stored or ''} end
if status == 'completed' then return {'completed', redis.call('HGET', key, 'response') or 'null'} end
if status == 'failed' and redis.call('HGET', key, 'retryable') ~= '1' then
  return {'failed', redis.call('HGET', key, 'error') or ''}
end
if status == 'processing' then
  local lockUntil = tonumber(redis.call('HGET', key, 'lockUntil') or '0')
  if lockUntil > now then return {'in-progress', tostring(lockUntil)} end
end
-- A lapsed lock (its worker died) or a released, retryable failure: this caller takes over.
redis.call('HSET', key, 'status', 'processing', 'lockUntil', now + tonumber(ARGV[2]), 'updatedAt', now)
redis.call('HDEL', key, 'error', 'retryable')
local attempts = redis.call('HINCRBY', key, 'attempts', 1)
redis.call('PEXPIRE', key, ARGV[3])
if status == 'processing' then return {'started', '1', tostring(attempts)} end
return {'started', '0', tostring(attempts)}
