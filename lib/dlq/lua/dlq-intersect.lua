
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('ZCARD', KEYS[1]) end
local args = {'ZINTERSTORE', KEYS[1], #KEYS - 1}
for i = 2, #KEYS do args[#args + 1] = KEYS[i] end
args[#args + 1] = 'AGGREGATE'
args[#args + 1] = 'MAX'
local n = redis.call(unpack(args))
if n > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
