local id, allowed, maxUpdatedAt = ARGV[2], ARGV[3], ARGV[4]
local e = redis.call('HMGET', KEYS[1], 'status', 'jobType', 'errorClass', 'tenantOrg', 'updatedAt')
if not e[1] then return 0 end
if allowed ~= '' and not listed(allowed, e[1]) then return 0 end
if maxUpdatedAt ~= '' and tonumber(e[5] or '0') > tonumber(maxUpdatedAt) then return 0 end
for _, k in ipairs(indexKeys(e[2], e[3], e[4])) do redis.call('ZREM', k, id) end
redis.call('ZREM', statusKey(e[1]), id)
redis.call('DEL', KEYS[1])
redis.call('INCR', KEYS[2])
return 1
