local key, jobPrefix, start, count, isList = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1'
local wantName, wantOrg = ARGV[5], ARGV[6]
-- Payload search: a substring of the data as stored (JSON text), and a dotted path into the
-- decoded data whose value, as text, equals pathValue. Empty means no such test.
local contains, path, pathValue = ARGV[7] or '', ARGV[8] or '', ARGV[9] or ''
-- A value with only these characters is written as it is inside JSON: a plain find rejects most jobs before cjson runs.
local plainValue = pathValue ~= '' and not string.find(pathValue, '[^%w _.:@%-]')
local segments = {}
if path ~= '' then
  for part in string.gmatch(path, '[^.]+') do segments[#segments + 1] = part end
end

local function valueAt(data)
  local decoded, node = pcall(cjson.decode, data)
  if not decoded then return nil end
  for _, part in ipairs(segments) do
    if type(node) ~= 'table' then return nil end
    local index = tonumber(part)
    if index ~= nil and node[index + 1] ~= nil then node = node[index + 1] else node = node[part] end
  end
  return node
end

local function asText(v)
  if v == cjson.null then return 'null' end
  local t = type(v)
  if t == 'string' then return v end
  if t == 'number' then
    if v == math.floor(v) and v > -1e15 and v < 1e15 then return string.format('%d', v) end
    return tostring(v)
  end
  if t == 'boolean' then return tostring(v) end
  return nil
end

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
  local data
  if ok and (wantOrg ~= '' or contains ~= '' or path ~= '') then
    data = redis.call('HGET', jobKey, 'data')
    ok = data ~= false and data ~= nil
  end
  if ok and wantOrg ~= '' then
    ok = false
    if string.find(data, needle, 1, true) then
      local decoded, parsed = pcall(cjson.decode, data)
      ok = decoded and type(parsed) == 'table' and type(parsed.tenant) == 'table' and parsed.tenant.orgId == wantOrg
    end
  end
  if ok and contains ~= '' then
    ok = string.find(data, contains, 1, true) ~= nil
  end
  if ok and path ~= '' then
    ok = not plainValue or string.find(data, pathValue, 1, true) ~= nil
    if ok then ok = asText(valueAt(data)) == pathValue end
  end
  if ok then out[#out + 1] = id end
end
return out
