local cursor = redis.call('HGET', KEYS[1], 'cursor') or ''
if cursor ~= ARGV[4] then return -1 end
local factor = tonumber(ARGV[1])
local floor = tonumber(ARGV[2])
local lowered = 0
for i = 2, #KEYS do
  local imp = redis.call('HGET', KEYS[i], 'importance')
  if imp then
    imp = tonumber(imp)
    if imp > floor then
      local nextImp = imp * factor
      if nextImp < floor then nextImp = floor end
      redis.call('HSET', KEYS[i], 'importance', string.format('%.10g', nextImp), 'updatedAt', ARGV[3])
      lowered = lowered + 1
    end
  end
end
redis.call('HSET', KEYS[1], 'cursor', ARGV[5])
redis.call('HINCRBY', KEYS[1], 'scanned', #KEYS - 1)
redis.call('HINCRBY', KEYS[1], 'lowered', lowered)
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return lowered
