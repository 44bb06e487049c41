local base = ARGV[1]
local function indexKeys(jobType, errorClass, tenantOrg)
  local ks = { base .. ':i:all', base .. ':i:type:' .. jobType, base .. ':i:class:' .. errorClass }
  if tenantOrg and tenantOrg ~= '' then ks[#ks + 1] = base .. ':i:tenant:' .. tenantOrg end
  return ks
end
local function statusKey(s) return base .. ':i:status:' .. s end
local function moveStatus(id, from, to, score)
  redis.call('ZREM', statusKey(from), id)
  redis.call('ZADD', statusKey(to), score, id)
end
local function listed(csv, value)
  return string.find(',' .. csv .. ',', ',' .. value .. ',', 1, true) ~= nil
end
local function appendJson(array, item)
  if not array or array == '' or array == '[]' then return '[' .. item .. ']' end
  return string.sub(array, 1, -2) .. ',' .. item .. ']'
end
