local id, now, claimedAt, jobId = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local e = redis.call('HMGET', KEYS[1], 'status', 'failedAt', 'replays', 'replayCount', 'reopenAfter', 'lastReplayJobId')
if e[1] ~= 'replayed' or e[5] ~= claimedAt or e[6] ~= jobId then return 0 end
-- The retry did not happen: back to pending, and the history item of the claim goes too.
local replays = cjson.decode(e[3])
table.remove(replays)
local text = '[]'
if #replays > 0 then text = cjson.encode(replays) end
redis.call('HSET', KEYS[1], 'status', 'pending', 'updatedAt', now, 'replays', text, 'replayCount', tonumber(e[4]) - 1)
redis.call('HDEL', KEYS[1], 'reopenAfter', 'lastReplayJobId')
moveStatus(id, 'replayed', 'pending', e[2])
redis.call('INCR', KEYS[2])
return 1
