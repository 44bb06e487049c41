/**
 * The vector store's Lua scripts. Every key of one namespace shares the hash tag
 * `{vec:<namespace>}`, so each script is atomic on a single node and on a cluster.
 *
 * Every change appends to the namespace's change log, a stream whose entry ids are
 * `<seq>-0` with `seq` counted in the meta hash: a process holding an in-memory index
 * reads the entries after the last seq it applied, and a missing seq (the stream is
 * capped) tells it to reload instead of silently missing a change.
 */

/** Log entries kept; an index that falls further behind reloads from the vectors. */
export const LOG_MAX_LENGTH = 10_000;

const APPEND_LOG = `
local function appendLog(meta, log, op, id, label, shard)
  local seq = redis.call('HINCRBY', meta, 'seq', 1)
  redis.call('XADD', log, 'MAXLEN', '~', ${LOG_MAX_LENGTH}, seq .. '-0', 'op', op, 'id', id, 'label', label, 'shard', shard)
  return seq
end
`;

/**
 * Insert or replace one vector.
 * KEYS: 1 meta, 2 labels (zset label → id), 3 log, 4 vector hash, 5 the shard set for a
 * new vector, 6.. the tenant index sets.
 * ARGV: 1 id, 2 model, 3 dimensions, 4 textHash, 5 shard for a new vector, 6 default
 * shard count, 7 orgId ('' for none), 8 workspaceId, 9 now, 10.. field/value pairs.
 * Returns {status, label}: status 0 unchanged (same text and model), 1 added,
 * 2 replaced; or an error reply MODEL or TENANT when refused.
 */
export const UPSERT = `${APPEND_LOG}
local meta, labels, log, vkey, shardKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local model = redis.call('HGET', meta, 'model')
if not model then
  redis.call('HSET', meta, 'model', ARGV[2], 'dimensions', ARGV[3], 'createdAt', ARGV[9])
  redis.call('HSETNX', meta, 'shards', ARGV[6])
  redis.call('HSETNX', meta, 'generation', 0)
  redis.call('HSETNX', meta, 'seq', 0)
  redis.call('HSETNX', meta, 'deleted', 0)
elseif model ~= ARGV[2] then
  if redis.call('ZCARD', labels) > 0 then
    return redis.error_reply('MODEL namespace holds vectors of model ' .. model .. '; reindex it to switch')
  end
  -- An empty namespace adopts the new model; a new generation makes indexes rebuild for its dimensions.
  redis.call('HSET', meta, 'model', ARGV[2], 'dimensions', ARGV[3])
  redis.call('HINCRBY', meta, 'generation', 1)
else
  local dims = redis.call('HGET', meta, 'dimensions')
  if not dims or dims == '' then
    redis.call('HSET', meta, 'dimensions', ARGV[3])
  elseif dims ~= ARGV[3] then
    return redis.error_reply('MODEL namespace vectors have ' .. dims .. ' dimensions, not ' .. ARGV[3])
  end
end
local old = redis.call('HMGET', vkey, 'label', 'shard', 'textHash', 'model', 'orgId', 'workspaceId')
if old[1] and ((old[5] or '') ~= ARGV[7] or (old[6] or '') ~= ARGV[8]) then
  return redis.error_reply('TENANT vector belongs to another tenant')
end
if old[1] and old[3] == ARGV[4] and old[4] == ARGV[2] then return {0, tonumber(old[1])} end
local fields = {}
for i = 10, #ARGV do fields[#fields + 1] = ARGV[i] end
local label, shard, status
if old[1] then
  label, shard, status = old[1], old[2], 2
  -- The ANN graph keeps the replaced node as a tombstone until the next rebuild.
  redis.call('HINCRBY', meta, 'deleted', 1)
else
  label, shard, status = redis.call('HINCRBY', meta, 'nextLabel', 1), ARGV[5], 1
  redis.call('ZADD', labels, label, ARGV[1])
  redis.call('ZADD', shardKey, 0, ARGV[1])
  for i = 6, #KEYS do redis.call('ZADD', KEYS[i], 0, ARGV[1]) end
  redis.call('HSET', vkey, 'createdAt', ARGV[9])
end
redis.call('HSET', vkey, 'label', label, 'shard', shard, unpack(fields))
appendLog(meta, log, 'add', ARGV[1], label, shard)
return {status, tonumber(label)}
`;

/**
 * Delete one vector. KEYS: 1 meta, 2 labels, 3 log, 4 vector hash, 5 its shard set,
 * 6.. its tenant index sets. ARGV: 1 id, 2 the shard the caller read.
 * Returns 1 deleted, 0 absent, -1 when the vector moved shard since the caller read it
 * (the caller reads again and retries).
 */
export const DELETE = `${APPEND_LOG}
local meta, labels, log, vkey, shardKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local cur = redis.call('HMGET', vkey, 'label', 'shard')
if not cur[1] then return 0 end
if cur[2] ~= ARGV[2] then return -1 end
redis.call('DEL', vkey)
redis.call('ZREM', labels, ARGV[1])
redis.call('ZREM', shardKey, ARGV[1])
for i = 6, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
redis.call('HINCRBY', meta, 'deleted', 1)
appendLog(meta, log, 'del', ARGV[1], cur[1], cur[2])
return 1
`;

/**
 * Move vectors between two shards and count them in a run record, in one step, so a
 * rebalance that dies midway knows exactly how many of a transfer are done.
 * KEYS: 1 run record, 2 from set, 3 to set, 4.. vector hashes. ARGV: 1 from, 2 to,
 * 3 the run record's counter field, 4 its TTL in ms, 5.. ids (in the order of KEYS 4..).
 * A vector no longer in `from` is skipped. Returns the number moved.
 */
export const MOVE = `
local moved = 0
for i = 4, #KEYS do
  local id = ARGV[i + 1]
  if redis.call('HGET', KEYS[i], 'shard') == ARGV[1] then
    redis.call('HSET', KEYS[i], 'shard', ARGV[2])
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZADD', KEYS[3], 0, id)
    moved = moved + 1
  end
end
redis.call('HINCRBY', KEYS[1], ARGV[3], moved)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return moved
`;

/**
 * Start a new index generation: every process rebuilds its in-memory graphs from the
 * vectors, and the tombstone count starts again at zero. KEYS: 1 meta.
 * ARGV: 1 now, 2 the new model ('' to keep it). A new model also clears the dimensions,
 * which the first vector of that model sets. Returns the new generation.
 */
export const NEW_GENERATION = `
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[1], 'model', ARGV[2], 'dimensions', '')
end
redis.call('HSET', KEYS[1], 'deleted', 0, 'rebuiltAt', ARGV[1])
-- The log is kept: processes still serving the old graphs keep applying it while they rebuild.
return redis.call('HINCRBY', KEYS[1], 'generation', 1)
`;
