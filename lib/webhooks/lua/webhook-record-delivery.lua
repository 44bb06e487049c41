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
