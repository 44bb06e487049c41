local max = tonumber(ARGV[1])
local out = {}
for i, key in ipairs(KEYS) do
  local h = redis.call('HGETALL', key)
  if redis.call('HSTRLEN', key, 'payload') > max then
    local n = #h
    for j = 1, n, 2 do
      if h[j] == 'payload' then
        h[n + 1] = 'payloadCut'
        h[n + 2] = tostring(#h[j + 1])
        h[j + 1] = string.sub(h[j + 1], 1, max)
      end
    end
  end
  out[i] = h
end
return out
