if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'username', ARGV[1], 'role', ARGV[2], 'passwordHash', ARGV[3], 'createdAt', ARGV[4], 'sessionEpoch', '0')
redis.call('SADD', KEYS[2], ARGV[1])
return 1
