if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local n = tonumber(ARGV[1])
local fields = {}
for i = 6, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
for i = 2, 1 + n do redis.call('ZADD', KEYS[i], 0, ARGV[2]) end
local marked = 0
for i = 2 + n, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    redis.call('HSET', KEYS[i], 'consolidatedInto', ARGV[5], 'updatedAt', ARGV[4])
    if ARGV[3] == '1' then
      local imp = tonumber(redis.call('HGET', KEYS[i], 'importance') or '0')
      redis.call('HSET', KEYS[i], 'importance', string.format('%.10g', imp / 2))
    end
    marked = marked + 1
  end
end
return marked
