/**
 * The idempotency store's Lua scripts. Each decides and writes in one step, so two
 * workers beginning the same key at once cannot both start. Time is Redis's own (TIME),
 * so workers with skewed clocks still agree on when a lock has lapsed.
 *
 * A record is a hash: status, requestHash, response (JSON), error, retryable ('1'/'0'),
 * lockUntil (ms), attempts, createdAt, updatedAt.
 */

const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * KEYS[1] record. ARGV: requestHash, lockMs, ttlMs.
 * Returns {'started', takeover '0'|'1', attempts} | {'completed', responseJson} |
 * {'in-progress', lockUntil} | {'failed', error} | {'conflict', storedHash}.
 */
export const BEGIN = `${NOW}
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
`;

/**
 * KEYS[1] record. ARGV: responseJson, ttlMs. Returns 0 when there is no record (never
 * begun, or expired), 2 when it is already completed (the first stored response stays:
 * replays must keep returning the same outcome), else 1.
 */
export const COMPLETE = `${NOW}
local key = KEYS[1]
local status = redis.call('HGET', key, 'status')
if not status then return 0 end
if status == 'completed' then return 2 end
redis.call('HSET', key, 'status', 'completed', 'response', ARGV[1], 'updatedAt', now)
redis.call('HDEL', key, 'lockUntil', 'error', 'retryable')
redis.call('PEXPIRE', key, ARGV[2])
return 1
`;

/**
 * KEYS[1] record. ARGV: error, retryable '1'|'0', ttlMs. Returns 0 when there is no
 * record, 2 when it is already completed (a late failure does not undo a success), else 1.
 */
export const FAIL = `${NOW}
local key = KEYS[1]
local status = redis.call('HGET', key, 'status')
if not status then return 0 end
if status == 'completed' then return 2 end
redis.call('HSET', key, 'status', 'failed', 'error', ARGV[1], 'retryable', ARGV[2], 'updatedAt', now)
redis.call('HDEL', key, 'lockUntil')
redis.call('PEXPIRE', key, ARGV[3])
return 1
`;
