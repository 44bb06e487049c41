
local now = tonumber(ARGV[1])
local free, base, maxDelay = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local maxClient, maxGlobal, window = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local function wait(key)
  local t = redis.call('PTTL', key)
  if t < 0 then t = window end
  return t
end
local clientFails = tonumber(redis.call('GET', KEYS[2]) or '0')
if clientFails >= maxClient then return {0, 'client', wait(KEYS[2])} end
-- The global cap bounds hashing work, not accounts: a client with no failures in the
-- window always gets its attempt (docs/security.md, "Sign-in caps").
if clientFails > 0 and tonumber(redis.call('GET', KEYS[3]) or '0') >= maxGlobal then return {0, 'global', wait(KEYS[3])} end
local fails = tonumber(redis.call('HGET', KEYS[1], 'fails') or '0')
local last = tonumber(redis.call('HGET', KEYS[1], 'last') or '0')
if fails >= free then
  local delay = math.min(base * 2 ^ (fails - free), maxDelay)
  if now < last + delay then return {0, 'pair', math.ceil(last + delay - now)} end
end
redis.call('HSET', KEYS[1], 'fails', fails + 1, 'last', now)
redis.call('PEXPIRE', KEYS[1], maxDelay * 2)
for i = 2, 3 do
  redis.call('INCR', KEYS[i])
  if redis.call('PTTL', KEYS[i]) < 0 then redis.call('PEXPIRE', KEYS[i], window) end
end
return {1, clientFails}
