local key = KEYS[1]
local owner = ARGV[4] or ''
local status = redis.call('HGET', key, 'status')
if not status then
  redis.call('HSET', key, 'status', 'processing', 'requestHash', ARGV[1], 'lockUntil', now + tonumber(ARGV[2]),
    'attempts', 1, 'createdAt', now, 'updatedAt', now, 'owner', owner)
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
  -- The holder named as this caller is a run that ended without a word (its process died):
  -- only one run of an owner is alive at a time, so this one takes over before the lock lapses.
  local sameOwner = owner ~= '' and redis.call('HGET', key, 'owner') == owner
  if lockUntil > now and not sameOwner then return {'in-progress', tostring(lockUntil)} end
end
-- A lapsed lock (its worker died), the same owner again, or a released, retryable failure: this caller takes over.
redis.call('HSET', key, 'status', 'processing', 'lockUntil', now + tonumber(ARGV[2]), 'updatedAt', now, 'owner', owner)
redis.call('HDEL', key, 'error', 'retryable')
local attempts = redis.call('HINCRBY', key, 'attempts', 1)
redis.call('PEXPIRE', key, ARGV[3])
if status == 'processing' then return {'started', '1', tostring(attempts)} end
return {'started', '0', tostring(attempts)}
