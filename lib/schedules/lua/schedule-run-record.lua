local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur then
  local ok, c = pcall(cjson.decode, cur)
  if ok and type(c) == 'table' and tonumber(c.at) and tonumber(c.at) > tonumber(ARGV[3]) then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
