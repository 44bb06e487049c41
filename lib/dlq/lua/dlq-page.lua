
local key = KEYS[1]
local from, to, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local cScore, cId, offset = tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6])
local total = -1
if ARGV[7] == '1' then total = redis.call('ZCOUNT', key, ARGV[1], ARGV[2]) end
local out = {total}
local want = limit + 1
local function full() return (#out - 1) / 2 >= want end
local rank = false
if cId ~= '' then rank = redis.call('ZREVRANK', key, cId) end
if cId == '' or rank then
  local start
  if rank then start = rank + 1 else start = redis.call('ZCOUNT', key, '(' .. ARGV[2], '+inf') + offset end
  local rows = redis.call('ZREVRANGE', key, start, start + want - 1, 'WITHSCORES')
  for i = 1, #rows, 2 do
    local s = tonumber(rows[i + 1])
    if s < from then break end
    if s <= to then
      out[#out + 1] = rows[i]
      out[#out + 1] = rows[i + 1]
    end
  end
else
  local max = math.min(cScore, to)
  local skip = 0
  while not full() do
    local rows = redis.call('ZREVRANGEBYSCORE', key, string.format('%d', max), ARGV[1], 'WITHSCORES', 'LIMIT', skip, 200)
    if #rows == 0 then break end
    skip = skip + #rows / 2
    for i = 1, #rows, 2 do
      if not (tonumber(rows[i + 1]) == cScore and rows[i] >= cId) then
        out[#out + 1] = rows[i]
        out[#out + 1] = rows[i + 1]
        if full() then break end
      end
    end
  end
end
return out
