-- KEYS: the minute's counts hash, the failures stream
-- ARGV: client, reason, username, minuteStartMs, retentionMs, maxLen, minId
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('HINCRBY', KEYS[1], ARGV[1] .. '|reason|' .. ARGV[2], 1)
redis.call('HSET', KEYS[1], ARGV[1] .. '|user', ARGV[3])
if n == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  redis.call('XADD', KEYS[2], 'MINID', ARGV[7], '*', 'client', ARGV[1], 'minute', ARGV[4], 'user', ARGV[3], 'reason', ARGV[2])
  redis.call('XTRIM', KEYS[2], 'MAXLEN', '~', ARGV[6])
end
return n
