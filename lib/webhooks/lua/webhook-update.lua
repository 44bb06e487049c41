if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for k, v in pairs(cjson.decode(ARGV[1])) do redis.call('HSET', KEYS[1], k, v) end
for _, k in ipairs(cjson.decode(ARGV[2])) do redis.call('HDEL', KEYS[1], k) end
if ARGV[3] == '1' then redis.call('DEL', KEYS[2]) end
return 1
