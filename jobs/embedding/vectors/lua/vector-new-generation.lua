if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[1], 'model', ARGV[2], 'dimensions', '')
end
redis.call('HSET', KEYS[1], 'deleted', 0, 'rebuiltAt', ARGV[1])
-- The log is kept: processes still serving the old graphs keep applying it while they rebuild.
return redis.call('HINCRBY', KEYS[1], 'generation', 1)
