/**
 * The webhook store's Lua scripts: each check-and-write happens in one step, so an
 * update never resurrects a deleted webhook and the failure that crosses maxFailures
 * disables the webhook exactly once, however many deliveries fail at the same moment.
 * All keys of the registry share the `{webhooks}` hash tag, so this works on a cluster.
 */

/** KEYS: hook, index. ARGV: fieldsJson, createdAt, id. Returns 0 when the id is taken. */
export const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local fields = cjson.decode(ARGV[1])
for k, v in pairs(fields) do redis.call('HSET', KEYS[1], k, v) end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return 1
`;

/**
 * KEYS: hook, failures. ARGV: setJson, delJson, clearFailures '1'|'0'.
 * Returns 0 when the webhook does not exist.
 */
export const UPDATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for k, v in pairs(cjson.decode(ARGV[1])) do redis.call('HSET', KEYS[1], k, v) end
for _, k in ipairs(cjson.decode(ARGV[2])) do redis.call('HDEL', KEYS[1], k) end
if ARGV[3] == '1' then redis.call('DEL', KEYS[2]) end
return 1
`;

/**
 * KEYS: hook, deliveries, failures.
 * ARGV: recordJson, keep, ok '1'|'0', at, windowMs, failureMember.
 * Returns {failuresInWindow, disabledNow 0|1, maxFailures}; {-1, 0, 0} when the webhook
 * no longer exists (nothing is written for a deleted webhook).
 */
export const RECORD_DELIVERY = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1, 0, 0} end
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
local at = tonumber(ARGV[4])
local window = tonumber(ARGV[5])
local max = tonumber(redis.call('HGET', KEYS[1], 'maxFailures') or '0')
if ARGV[3] ~= '1' then
  redis.call('ZADD', KEYS[3], at, ARGV[6])
  redis.call('PEXPIRE', KEYS[3], window)
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', at - window)
local count = redis.call('ZCARD', KEYS[3])
if ARGV[3] == '1' or redis.call('HGET', KEYS[1], 'enabled') ~= '1' or max < 1 or count < max then
  return {count, 0, max}
end
local reason = string.format('%d failed deliveries within 24 h (maxFailures %d)', count, max)
redis.call('HSET', KEYS[1], 'enabled', '0', 'disabledAt', at, 'disabledReason', reason, 'updatedAt', at)
return {count, 1, max}
`;
