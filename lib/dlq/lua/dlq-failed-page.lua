-- The reconciler's next page of a queue's failed set, newest first, read from the last
-- job it saw rather than from a position: a job that leaves the set ahead of that one
-- (retried from the head, removed) shifts no unread job past it. Atomic, so nothing
-- leaves between finding the job and reading after it.
-- KEYS: the failed set. ARGV: page size, the last job's score ('' for the head) and id
-- ('' when only its time is known).
-- Returns {id, score, id, score, ...}.
local count = tonumber(ARGV[1])
local start = 0
if ARGV[2] ~= '' then
  local score = ARGV[3] ~= '' and redis.call('ZSCORE', KEYS[1], ARGV[3])
  if score and tonumber(score) == tonumber(ARGV[2]) then
    start = redis.call('ZREVRANK', KEYS[1], ARGV[3]) + 1
  else
    -- That job has left the set (or failed again since, at a later time): start after
    -- every job that failed later than it did, which reads its ties again (recording is
    -- idempotent) rather than skip one.
    start = redis.call('ZCOUNT', KEYS[1], '(' .. ARGV[2], '+inf')
  end
end
return redis.call('ZREVRANGE', KEYS[1], start, start + count - 1, 'WITHSCORES')
