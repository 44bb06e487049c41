--[[
  The scale-out benchmark's stand-in for one job's finishing script, to measure how many
  such calls redis-server itself can run (with redis-benchmark, scripts/bench/scale-out.ts).
  Shaped like BullMQ's moveToFinished in outline, not a copy of it: one job leaves the
  active list, its hash gets its result, it joins the completed set (trimmed to 100, as
  removeOnComplete keeps), an event goes to the stream (capped), the per-minute metrics
  counter moves, and its lock goes. Eight commands on five keys of one hash tag; the job
  hashes cycle through 1,000 names so that memory stays flat however long it runs.

  KEYS[1] id counter   KEYS[2] job hash prefix   KEYS[3] active list
  KEYS[4] completed    KEYS[5] events stream
  ARGV[1] timestamp
]]
local rcall = redis.call
local id = rcall('INCR', KEYS[1]) % 1000
local job = KEYS[2] .. id
rcall('LREM', KEYS[3], -1, id)
rcall('HSET', job, 'finishedOn', ARGV[1], 'returnvalue', 'null', 'processedOn', ARGV[1])
rcall('ZADD', KEYS[4], ARGV[1], id)
rcall('ZREMRANGEBYRANK', KEYS[4], 0, -101)
rcall('XADD', KEYS[5], 'MAXLEN', '~', 10000, '*', 'event', 'completed', 'jobId', id)
rcall('HINCRBY', KEYS[2] .. 'metrics', 'count', 1)
rcall('DEL', job .. ':lock')
return id
