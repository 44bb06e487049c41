local id, allowed, newStatus, now, item = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local e = redis.call('HMGET', KEYS[1], 'status', 'failedAt', 'replays', 'replayCount')
if not e[1] then return {-1} end
if not listed(allowed, e[1]) then return {0, e[1]} end
redis.call('HSET', KEYS[1], 'status', newStatus, 'updatedAt', now)
if item ~= '' then
  redis.call('HSET', KEYS[1], 'replays', appendJson(e[3], item), 'replayCount', tonumber(e[4] or '0') + 1)
end
if newStatus ~= 'discarded' then redis.call('HDEL', KEYS[1], 'discardedBy') end
for i = 7, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
if e[1] ~= newStatus then moveStatus(id, e[1], newStatus, e[2]) end
redis.call('INCR', KEYS[2])
return {1, e[1]}
