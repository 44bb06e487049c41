local cutoff = tonumber(ARGV[1])
local removed = 0
local k = 4
for i = 2, #ARGV, 2 do
  local id = ARGV[i]
  local n = tonumber(ARGV[i + 1])
  local score = redis.call('ZSCORE', KEYS[3], id)
  if score and tonumber(score) <= cutoff then
    redis.call('HDEL', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
    for j = 0, n - 1 do redis.call('ZREM', KEYS[k + j], id) end
    removed = removed + 1
  end
  k = k + n
end
return removed
