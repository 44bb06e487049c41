
-- An attempt refused before any hashing (busy): undo what its reservation counted,
-- without starting the pair over as a success does.
if tonumber(redis.call('HGET', KEYS[1], 'fails') or '0') > 0 then redis.call('HINCRBY', KEYS[1], 'fails', -1) end
for i = 2, 3 do
  if tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
end
return 1
