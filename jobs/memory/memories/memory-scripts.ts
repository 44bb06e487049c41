/**
 * The memory store's Lua scripts. Each decides and writes in one step, so a retry or a
 * second worker never applies half a change or the same change twice. Every key a
 * script touches shares the `{memories}` hash tag, so they also run on a Redis Cluster.
 *
 * Importance is written with 10 significant digits: plenty for a 0..1 score, and short.
 */

/**
 * Create if absent. KEYS[1] memory hash, KEYS[2..] index sorted sets.
 * ARGV[1] index member, ARGV[2..] field/value pairs. Returns 1 when created, 0 when the id exists.
 */
export const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local fields = {}
for i = 2, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
for i = 2, #KEYS do redis.call('ZADD', KEYS[i], 0, ARGV[1]) end
return 1
`;

/**
 * Update if present. KEYS[1] memory hash. ARGV[1] n, ARGV[2 .. 1+2n] field/value pairs
 * to set, ARGV[2+2n ..] fields to delete. Returns 1 when updated, 0 when the memory does
 * not exist (an update must never resurrect a deleted memory as a partial hash).
 */
export const UPDATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local n = tonumber(ARGV[1])
for i = 2, 2 * n, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
for i = 2 + 2 * n, #ARGV do redis.call('HDEL', KEYS[1], ARGV[i]) end
return 1
`;

/**
 * Save a consolidation's semantic memory and mark its sources, all or nothing.
 * KEYS[1] semantic memory hash, KEYS[2 .. 1+n] its index sets, KEYS[2+n ..] source hashes.
 * ARGV[1] n, ARGV[2] index member, ARGV[3] '1' to halve source importance, ARGV[4] now,
 * ARGV[5] semantic id, ARGV[6..] field/value pairs of the semantic memory.
 * Returns 0 when the semantic memory already exists (nothing is touched: a retry or a
 * replay must not halve the sources a second time), else the number of sources marked.
 */
export const SAVE_CONSOLIDATED = `
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
`;

/**
 * One batch of an importance decay, applied together with the run's cursor.
 * KEYS[1] the run record, KEYS[2..] memory hashes.
 * ARGV[1] factor, ARGV[2] floor, ARGV[3] now, ARGV[4] the cursor this batch expects
 * (the last member of the previous batch, '' at the start), ARGV[5] the new cursor,
 * ARGV[6] run record TTL in ms.
 * Returns the number of memories lowered, or -1 when the run's cursor is not the
 * expected one: that batch was already applied (by an earlier attempt), and applying
 * it again would decay twice.
 */
export const DECAY_BATCH = `
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
`;
