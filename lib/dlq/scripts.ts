import { LuaScript } from './lua-script';

/**
 * The DLQ's Lua scripts. Each state change of an entry and of its index entries is one
 * script, so a reader never sees an entry in one status index and not in its hash,
 * and two concurrent writers cannot both win. Index key names are derived from the
 * entry's stored fields with the layout of DlqKeys (ARGV[1] is `<root>:{dlq}`); all of
 * them share the `{dlq}` hash tag, hence one slot on a cluster.
 *
 * Entry hash fields: id queue originalJobId jobType failedAt status source attempts
 * errorClass tenantOrg updatedAt doc (JSON: jobData payload error tenant) replays (JSON
 * array) replayCount (length of replays) discardedBy retriedInPlaceAt, and while a
 * replay runs: replayingN replayingFrom replayingAt.
 */
const HELPERS = `
local base = ARGV[1]
local function indexKeys(jobType, errorClass, tenantOrg)
  local ks = { base .. ':i:all', base .. ':i:type:' .. jobType, base .. ':i:class:' .. errorClass }
  if tenantOrg and tenantOrg ~= '' then ks[#ks + 1] = base .. ':i:tenant:' .. tenantOrg end
  return ks
end
local function statusKey(s) return base .. ':i:status:' .. s end
local function moveStatus(id, from, to, score)
  redis.call('ZREM', statusKey(from), id)
  redis.call('ZADD', statusKey(to), score, id)
end
local function listed(csv, value)
  return string.find(',' .. csv .. ',', ',' .. value .. ',', 1, true) ~= nil
end
local function appendJson(array, item)
  if not array or array == '' or array == '[]' then return '[' .. item .. ']' end
  return string.sub(array, 1, -2) .. ',' .. item .. ']'
end
`;

/**
 * Create if absent, with every index entry; or re-open an entry whose job was retried
 * from its queue's failed tab and failed again after that. Re-arms the threshold
 * alert when the pending count was below it, and claims the alert when this write
 * takes the count to the threshold or past it.
 * KEYS: entry, version, alerted flag, pending index. ARGV: base, id, threshold, field/value pairs.
 * Returns {outcome (0 exists, 1 created, 2 reopened), status, pendingCount, alert (0/1)}.
 */
export const RECORD = new LuaScript(
  'dlq-record',
  `${HELPERS}
local id, threshold = ARGV[2], tonumber(ARGV[3])
local f = {}
for i = 4, #ARGV, 2 do f[ARGV[i]] = ARGV[i + 1] end
local before = redis.call('ZCARD', KEYS[4])
if before < threshold then redis.call('DEL', KEYS[3]) end
local cur = redis.call('HMGET', KEYS[1], 'status', 'retriedInPlaceAt', 'jobType', 'errorClass', 'tenantOrg')
local outcome
if not cur[1] then
  local args = {}
  for i = 4, #ARGV do args[#args + 1] = ARGV[i] end
  redis.call('HSET', KEYS[1], unpack(args))
  outcome = 1
elseif cur[1] == 'replayed' and cur[2] and tonumber(f.failedAt) > tonumber(cur[2]) then
  for _, k in ipairs(indexKeys(cur[3], cur[4], cur[5])) do redis.call('ZREM', k, id) end
  redis.call('ZREM', statusKey('replayed'), id)
  local args = {}
  for i = 4, #ARGV, 2 do
    local name = ARGV[i]
    if name ~= 'replays' and name ~= 'replayCount' then
      args[#args + 1] = name
      args[#args + 1] = ARGV[i + 1]
    end
  end
  redis.call('HSET', KEYS[1], unpack(args))
  redis.call('HDEL', KEYS[1], 'retriedInPlaceAt', 'discardedBy')
  outcome = 2
else
  return {0, cur[1], before, 0}
end
for _, k in ipairs(indexKeys(f.jobType, f.errorClass, f.tenantOrg)) do redis.call('ZADD', k, f.failedAt, id) end
redis.call('ZADD', KEYS[4], f.failedAt, id)
redis.call('INCR', KEYS[2])
local after = redis.call('ZCARD', KEYS[4])
local alert = 0
if after >= threshold and redis.call('SET', KEYS[3], '1', 'NX') then alert = 1 end
return {outcome, 'pending', after, alert}
`,
);

/**
 * pending|replayed → replaying: the one atomic step that lets exactly one of several
 * concurrent replays proceed. A claim older than `staleBefore` (its process died
 * between the claim and the enqueue) is taken over with the same replay number, so
 * the deterministic job id makes the retried enqueue a no-op if the first one landed.
 * KEYS: entry, version. ARGV: base, id, now, staleBefore, allowed statuses (csv),
 * expected replay count ('' = any). Returns {1, n} claimed, {0, status, replayCount} refused, {-1} missing.
 */
export const CLAIM_REPLAY = new LuaScript(
  'dlq-claim-replay',
  `${HELPERS}
local id, now, staleBefore, allowed, expected = ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6]
local e = redis.call('HMGET', KEYS[1], 'status', 'replayCount', 'replayingN', 'replayingAt', 'failedAt')
if not e[1] then return {-1} end
local count = tonumber(e[2] or '0')
if e[1] == 'replaying' and tonumber(e[4] or '0') < staleBefore then
  redis.call('HSET', KEYS[1], 'replayingAt', now, 'updatedAt', now)
  return {1, tonumber(e[3])}
end
-- Replaying a replayed entry again must be deliberate: the caller names the count it saw.
if not listed(allowed, e[1]) or (e[1] == 'replayed' and expected == '')
  or (expected ~= '' and tonumber(expected) ~= count) then
  return {0, e[1], count}
end
local n = count + 1
redis.call('HSET', KEYS[1], 'status', 'replaying', 'replayingN', n, 'replayingFrom', e[1], 'replayingAt', now, 'updatedAt', now)
moveStatus(id, e[1], 'replaying', e[5])
redis.call('INCR', KEYS[2])
return {1, n}
`,
);

/**
 * replaying → replayed once the job is enqueued, with its history item.
 * KEYS: entry, version. ARGV: base, id, n, now, history item JSON. Returns 1, or 0 if the claim is gone.
 */
export const FINISH_REPLAY = new LuaScript(
  'dlq-finish-replay',
  `${HELPERS}
local id, n, now, item = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local e = redis.call('HMGET', KEYS[1], 'status', 'replayingN', 'replays', 'failedAt')
if e[1] ~= 'replaying' or e[2] ~= n then return 0 end
redis.call('HSET', KEYS[1], 'status', 'replayed', 'replayCount', n, 'replays', appendJson(e[3], item), 'updatedAt', now)
redis.call('HDEL', KEYS[1], 'replayingN', 'replayingFrom', 'replayingAt', 'discardedBy')
moveStatus(id, 'replaying', 'replayed', e[4])
redis.call('INCR', KEYS[2])
return 1
`,
);

/**
 * replaying → the status it had, when the enqueue failed: nothing changed.
 * KEYS: entry, version. ARGV: base, id, n, now. Returns 1, or 0 if the claim is gone.
 */
export const ROLLBACK_REPLAY = new LuaScript(
  'dlq-rollback-replay',
  `${HELPERS}
local id, n, now = ARGV[2], ARGV[3], ARGV[4]
local e = redis.call('HMGET', KEYS[1], 'status', 'replayingN', 'replayingFrom', 'failedAt')
if e[1] ~= 'replaying' or e[2] ~= n then return 0 end
local back = e[3] or 'pending'
redis.call('HSET', KEYS[1], 'status', back, 'updatedAt', now)
redis.call('HDEL', KEYS[1], 'replayingN', 'replayingFrom', 'replayingAt')
moveStatus(id, 'replaying', back, e[4])
redis.call('INCR', KEYS[2])
return 1
`,
);

/**
 * Moves an entry to `newStatus` if its status is one of `allowed`, optionally appending
 * a history item (which increments replayCount), then sets the given fields.
 * KEYS: entry, version. ARGV: base, id, allowed (csv), newStatus, now, history item JSON
 * or '', field/value pairs. Returns {1, old status}, {0, status} refused, {-1} missing.
 */
export const SET_STATUS = new LuaScript(
  'dlq-set-status',
  `${HELPERS}
local id, allowed, newStatus, now, item = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local e = redis.call('HMGET', KEYS[1], 'status', 'failedAt', 'replays', 'replayCount')
if not e[1] then return {-1} end
if not listed(allowed, e[1]) then return {0, e[1]} end
redis.call('HSET', KEYS[1], 'status', newStatus, 'updatedAt', now)
if item ~= '' then
  redis.call('HSET', KEYS[1], 'replays', appendJson(e[3], item), 'replayCount', tonumber(e[4] or '0') + 1)
end
if newStatus ~= 'discarded' then redis.call('HDEL', KEYS[1], 'discardedBy') end
for i = 7, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
if e[1] ~= newStatus then moveStatus(id, e[1], newStatus, e[2]) end
redis.call('INCR', KEYS[2])
return {1, e[1]}
`,
);

/**
 * Deletes an entry and its index entries, if its status is allowed ('' = any) and it
 * was last updated at or before `maxUpdatedAt` ('' = any time).
 * KEYS: entry, version. ARGV: base, id, allowed, maxUpdatedAt. Returns 1 removed, 0 kept.
 */
export const REMOVE = new LuaScript(
  'dlq-remove',
  `${HELPERS}
local id, allowed, maxUpdatedAt = ARGV[2], ARGV[3], ARGV[4]
local e = redis.call('HMGET', KEYS[1], 'status', 'jobType', 'errorClass', 'tenantOrg', 'updatedAt')
if not e[1] then return 0 end
if allowed ~= '' and not listed(allowed, e[1]) then return 0 end
if maxUpdatedAt ~= '' and tonumber(e[5] or '0') > tonumber(maxUpdatedAt) then return 0 end
for _, k in ipairs(indexKeys(e[2], e[3], e[4])) do redis.call('ZREM', k, id) end
redis.call('ZREM', statusKey(e[1]), id)
redis.call('DEL', KEYS[1])
redis.call('INCR', KEYS[2])
return 1
`,
);

/**
 * The intersection of several indexes, computed once per key (whose name holds the
 * filter and the DLQ's write version) and kept `ttl` ms. AGGREGATE MAX keeps the score
 * failedAt, since every index scores an entry the same.
 * KEYS: destination, sources... ARGV: ttl ms. Returns the intersection's size.
 */
export const INTERSECT = new LuaScript(
  'dlq-intersect',
  `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('ZCARD', KEYS[1]) end
local args = {'ZINTERSTORE', KEYS[1], #KEYS - 1}
for i = 2, #KEYS do args[#args + 1] = KEYS[i] end
args[#args + 1] = 'AGGREGATE'
args[#args + 1] = 'MAX'
local n = redis.call(unpack(args))
if n > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
`,
);

/**
 * One page of an index, newest first, within [from, to], in O(log N + limit): after a
 * cursor by the cursor entry's rank; if that entry left the index since, by its score,
 * skipping the ties already returned (ties sort by id, descending). Without a cursor,
 * from `offset`. Returns {total, id1, score1, id2, score2, ...} with up to limit+1 rows
 * (one more than asked tells the caller there is a next page).
 * KEYS: index. ARGV: from, to, limit, cursorScore, cursorId, offset, withTotal (1/0).
 */
export const PAGE = new LuaScript(
  'dlq-page',
  `
local key = KEYS[1]
local from, to, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local cScore, cId, offset = tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6])
local total = -1
if ARGV[7] == '1' then total = redis.call('ZCOUNT', key, ARGV[1], ARGV[2]) end
local out = {total}
local want = limit + 1
local function full() return (#out - 1) / 2 >= want end
local rank = false
if cId ~= '' then rank = redis.call('ZREVRANK', key, cId) end
if cId == '' or rank then
  local start
  if rank then start = rank + 1 else start = redis.call('ZCOUNT', key, '(' .. ARGV[2], '+inf') + offset end
  local rows = redis.call('ZREVRANGE', key, start, start + want - 1, 'WITHSCORES')
  for i = 1, #rows, 2 do
    local s = tonumber(rows[i + 1])
    if s < from then break end
    if s <= to then
      out[#out + 1] = rows[i]
      out[#out + 1] = rows[i + 1]
    end
  end
else
  local max = math.min(cScore, to)
  local skip = 0
  while not full() do
    local rows = redis.call('ZREVRANGEBYSCORE', key, string.format('%d', max), ARGV[1], 'WITHSCORES', 'LIMIT', skip, 200)
    if #rows == 0 then break end
    skip = skip + #rows / 2
    for i = 1, #rows, 2 do
      if not (tonumber(rows[i + 1]) == cScore and rows[i] >= cId) then
        out[#out + 1] = rows[i]
        out[#out + 1] = rows[i + 1]
        if full() then break end
      end
    end
  end
end
return out
`,
);
