local key, jobPrefix, start, count, isList = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1'
local wantName, wantOrg = ARGV[5], ARGV[6]
local ids
if isList then
  ids = redis.call('LRANGE', key, start, start + count - 1)
else
  ids = redis.call('ZREVRANGE', key, start, start + count - 1)
end
local out = { #ids }
local needle = '"orgId":' .. cjson.encode(wantOrg)
for _, id in ipairs(ids) do
  local ok = true
  local jobKey = jobPrefix .. id
  if wantName ~= '' then
    ok = redis.call('HGET', jobKey, 'name') == wantName
  end
  if ok and wantOrg ~= '' then
    local data = redis.call('HGET', jobKey, 'data')
    ok = false
    if data and string.find(data, needle, 1, true) then
      local decoded, parsed = pcall(cjson.decode, data)
      ok = decoded and type(parsed) == 'table' and type(parsed.tenant) == 'table' and parsed.tenant.orgId == wantOrg
    end
  end
  if ok then out[#out + 1] = id end
end
return out
