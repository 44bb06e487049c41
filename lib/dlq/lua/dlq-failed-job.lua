-- A job of a queue's failed set as the reconciler needs it, with its data only when it
-- is within the limit: the size is checked (HSTRLEN) before anything is read, and a
-- larger job's fields are read without it (HMGET), so its data never leaves Redis;
-- only its first bytes do, cut before a UTF-8 character that does not fit whole.
-- KEYS: the failed set, the job's hash. ARGV: job id, max data bytes, preview bytes.
-- Returns false when the job is no longer in the failed set (retried, removed), else
-- {data bytes, data or preview, 1 if cut else 0, name, timestamp, opts, failedReason,
-- stacktrace, atm, attemptsMade, finishedOn, processedOn}.
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('EXISTS', KEYS[2]) == 0 then
  return false
end
local size = redis.call('HSTRLEN', KEYS[2], 'data')
local fields = redis.call('HMGET', KEYS[2], 'name', 'timestamp', 'opts', 'failedReason', 'stacktrace', 'atm',
  'attemptsMade', 'finishedOn', 'processedOn')
local data
local cut = 0
if size > tonumber(ARGV[2]) then
  cut = 1
  local max = tonumber(ARGV[3])
  data = string.sub(redis.call('HGET', KEYS[2], 'data'), 1, max + 1)
  if #data > max then
    local n = max
    -- 0x80-0xBF continue a character: back up to the byte that starts the one cut.
    while n > 0 and string.byte(data, n + 1) >= 128 and string.byte(data, n + 1) < 192 do
      n = n - 1
    end
    data = string.sub(data, 1, n)
  end
else
  data = redis.call('HGET', KEYS[2], 'data') or ''
end
local out = {size, data, cut}
for i = 1, #fields do
  out[i + 3] = fields[i] or ''
end
return out
