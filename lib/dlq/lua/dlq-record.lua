local id, threshold = ARGV[2], tonumber(ARGV[3])
local f = {}
for i = 4, #ARGV, 2 do f[ARGV[i]] = ARGV[i + 1] end
local before = redis.call('ZCARD', KEYS[4])
if before < threshold then redis.call('DEL', KEYS[3]) end
local cur = redis.call('HMGET', KEYS[1], 'status', 'retriedInPlaceAt', 'jobType', 'errorClass', 'tenantOrg')
local outcome
if not cur[1] then
  local args = {}
  for i = 4, #ARGV do args[#args + 1] = ARGV[i] end
  redis.call('HSET', KEYS[1], unpack(args))
  outcome = 1
elseif cur[1] == 'replayed' and cur[2] and tonumber(f.failedAt) > tonumber(cur[2]) then
  for _, k in ipairs(indexKeys(cur[3], cur[4], cur[5])) do redis.call('ZREM', k, id) end
  redis.call('ZREM', statusKey('replayed'), id)
  local args = {}
  for i = 4, #ARGV, 2 do
    local name = ARGV[i]
    if name ~= 'replays' and name ~= 'replayCount' then
      args[#args + 1] = name
      args[#args + 1] = ARGV[i + 1]
    end
  end
  redis.call('HSET', KEYS[1], unpack(args))
  redis.call('HDEL', KEYS[1], 'retriedInPlaceAt', 'discardedBy')
  outcome = 2
else
  return {0, cur[1], before, 0}
end
for _, k in ipairs(indexKeys(f.jobType, f.errorClass, f.tenantOrg)) do redis.call('ZADD', k, f.failedAt, id) end
redis.call('ZADD', KEYS[4], f.failedAt, id)
redis.call('INCR', KEYS[2])
local after = redis.call('ZCARD', KEYS[4])
local alert = 0
if after >= threshold and redis.call('SET', KEYS[3], '1', 'NX') then alert = 1 end
return {outcome, 'pending', after, alert}
