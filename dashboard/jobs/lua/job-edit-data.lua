-- Replaces a job's data only while no worker can have read it: the job is waiting,
-- delayed or prioritized (the states a worker takes it from), holds no lock, and its
-- data is still what the editor started from. One script, so a worker's moveToActive
-- runs either wholly before it (refused: the job left those states) or wholly after
-- (the worker reads the new data): never half-edited.
-- KEYS: job hash, wait, paused, delayed, prioritized, job lock, job logs.
-- ARGV: job id, expected data (as stored), new data, log line.
-- Returns {1, state} edited, {0, reason} refused (locked, not-waiting, changed), {-1} no job.
local id = ARGV[1]
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
if redis.call('EXISTS', KEYS[6]) == 1 then return {0, 'locked'} end
local state
if redis.call('ZSCORE', KEYS[4], id) then
  state = 'delayed'
elseif redis.call('ZSCORE', KEYS[5], id) then
  state = 'prioritized'
elseif redis.call('LPOS', KEYS[2], id, 'RANK', -1) or redis.call('LPOS', KEYS[3], id, 'RANK', -1) then
  -- From the tail, where the oldest waiting jobs are; BullMQ's own getState walks these lists too.
  state = 'waiting'
else
  return {0, 'not-waiting'}
end
if redis.call('HGET', KEYS[1], 'data') ~= ARGV[2] then return {0, 'changed'} end
redis.call('HSET', KEYS[1], 'data', ARGV[3])
redis.call('RPUSH', KEYS[7], ARGV[4])
return {1, state}
