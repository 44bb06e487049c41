local id, threshold, failure, jobId = ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5]
local f = {}
for i = 6, #ARGV, 2 do f[ARGV[i]] = ARGV[i + 1] end
local before = redis.call('ZCARD', KEYS[4])
if before < threshold then redis.call('DEL', KEYS[3]) end
local cur = redis.call('HMGET', KEYS[1], 'status', 'reopenAfter', 'jobType', 'errorClass', 'tenantOrg', 'lastReplayJobId', 'failures', 'failureCount')
local outcome
if not cur[1] then
  local args = {}
  for i = 6, #ARGV do args[#args + 1] = ARGV[i] end
  redis.call('HSET', KEYS[1], unpack(args))
  redis.call('HSET', KEYS[1], 'failures', '[' .. failure .. ']', 'failureCount', 1, 'failedJobId', jobId)
  outcome = 1
elseif (cur[1] == 'replayed' or cur[1] == 'replaying') and cur[6] == jobId and cur[2]
  and tonumber(f.failedAt) >= tonumber(cur[2]) then
  -- The job a replay or a retry produced failed for good: the same chain, so the same
  -- record, pending again, its latest failure in front and every failure in its history.
  for _, k in ipairs(indexKeys(cur[3], cur[4], cur[5])) do redis.call('ZREM', k, id) end
  redis.call('ZREM', statusKey(cur[1]), id)
  local keep = { id = true, queue = true, originalJobId = true, replays = true, replayCount = true }
  local args = {}
  for i = 6, #ARGV, 2 do
    if not keep[ARGV[i]] then
      args[#args + 1] = ARGV[i]
      args[#args + 1] = ARGV[i + 1]
    end
  end
  redis.call('HSET', KEYS[1], unpack(args))
  redis.call('HSET', KEYS[1], 'failures', appendJson(cur[7], failure), 'failureCount', tonumber(cur[8] or '1') + 1,
    'failedJobId', jobId)
  redis.call('HDEL', KEYS[1], 'reopenAfter', 'lastReplayJobId', 'discardedBy')
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
