import { LUA } from './lua';
import { LuaCommand } from '../redis/lua-command';
/**
 * The DLQ's Lua scripts. Each state change of an entry and of its index entries is one
 * script, so a reader never sees an entry in one status index and not in its hash,
 * and two concurrent writers cannot both win. Index key names are derived from the
 * entry's stored fields with the layout of DlqKeys (ARGV[1] is `<root>:{dlq}`); all of
 * them share the `{dlq}` hash tag, hence one slot on a cluster.
 *
 * Entry hash fields: id queue originalJobId jobType failedAt status source attempts
 * errorClass tenantOrg updatedAt doc (JSON: jobData without its payload, error, tenant,
 * payloadTooLarge; an older entry's doc holds the payload too) payload (its JSON, '' for
 * none; absent on an older entry) replays (JSON array) replayCount (length of replays)
 * failures (JSON array) failureCount discardedBy, reopenAfter and lastReplayJobId (whose
 * failure re-opens the record), failedJobId (the job of the latest failure, the only one
 * retried in place), and while a
 * replay runs: replayingN replayingFrom replayingAt.
 */
const HELPERS = LUA.helpers;

/**
 * Create if absent, with every index entry; or re-open an entry whose job was retried
 * from its queue's failed tab and failed again after that. Re-arms the threshold
 * alert when the pending count was below it, and claims the alert when this write
 * takes the count to the threshold or past it.
 * A failure of the job a replay or a queue retry produced (`lastReplayJobId`, failing
 * after `reopenAfter`) re-opens the chain's record instead, appending to `failures`.
 * KEYS: entry, version, alerted flag, pending index. ARGV: base, id, threshold, failure
 * (history item JSON), the failed job's id, field/value pairs.
 * Returns {outcome (0 exists, 1 created, 2 reopened), status, pendingCount, alert (0/1)}.
 */
export const RECORD = new LuaCommand('dlq-record', LUA['dlq-record'], [HELPERS]);

/**
 * pending|replayed → replaying: the one atomic step that lets exactly one of several
 * concurrent replays proceed. A claim older than `staleBefore` (its process died
 * between the claim and the enqueue) is taken over with the same replay number, so
 * the deterministic job id makes the retried enqueue a no-op if the first one landed.
 * KEYS: entry, version. ARGV: base, id, now, staleBefore, allowed statuses (csv),
 * expected replay count ('' = any), the replay job id without its number. Returns {1, n}
 * claimed, {0, status, replayCount} refused, {-1} missing.
 */
export const CLAIM_REPLAY = new LuaCommand('dlq-claim-replay', LUA['dlq-claim-replay'], [HELPERS]);

/**
 * replaying → replayed once the job is enqueued, with its history item; for an edited
 * replay, the replayed envelope becomes the entry's `doc` and `payload` (what the next
 * replay sends).
 * KEYS: entry, version. ARGV: base, id, n, now, history item JSON, doc JSON or '', payload JSON.
 * Returns 1, or 0 if the claim is gone.
 */
export const FINISH_REPLAY = new LuaCommand('dlq-finish-replay', LUA['dlq-finish-replay'], [HELPERS]);

/**
 * pending → replayed for a retry of the same job from its queue's failed set, with its
 * history item; the record of a job replayed, discarded or being replayed is refused, and
 * so is a job that is not the chain's latest failure (`failedJobId`: the original after a
 * replay of it failed), as `replayed`.
 * KEYS: entry, version. ARGV: base, id, now, history item JSON, job id.
 * Returns {1} claimed, {0, status[, latest failed job id]} refused, {-1} no record.
 */
export const CLAIM_RETRY = new LuaCommand('dlq-claim-retry', LUA['dlq-claim-retry'], [HELPERS]);

/**
 * replayed → pending when the claimed retry did not happen, dropping the claim's
 * history item; only the claim made at `claimedAt` for `jobId` is undone.
 * KEYS: entry, version. ARGV: base, id, now, claimedAt, job id. Returns 1 or 0.
 */
export const UNCLAIM_RETRY = new LuaCommand('dlq-unclaim-retry', LUA['dlq-unclaim-retry'], [HELPERS]);

/**
 * replaying → the status it had, when the enqueue failed: nothing changed.
 * KEYS: entry, version. ARGV: base, id, n, now. Returns 1, or 0 if the claim is gone.
 */
export const ROLLBACK_REPLAY = new LuaCommand('dlq-rollback-replay', LUA['dlq-rollback-replay'], [HELPERS]);

/**
 * Moves an entry to `newStatus` if its status is one of `allowed`, optionally appending
 * a history item (which increments replayCount), then sets the given fields.
 * KEYS: entry, version. ARGV: base, id, allowed (csv), newStatus, now, history item JSON
 * or '', field/value pairs. Returns {1, old status}, {0, status} refused, {-1} missing.
 */
export const SET_STATUS = new LuaCommand('dlq-set-status', LUA['dlq-set-status'], [HELPERS]);

/**
 * Deletes an entry and its index entries, if its status is allowed ('' = any) and it
 * was last updated at or before `maxUpdatedAt` ('' = any time).
 * KEYS: entry, version. ARGV: base, id, allowed, maxUpdatedAt. Returns 1 removed, 0 kept.
 */
export const REMOVE = new LuaCommand('dlq-remove', LUA['dlq-remove'], [HELPERS]);

/**
 * The intersection of several indexes, computed once per key (whose name holds the
 * filter and the DLQ's write version) and kept `ttl` ms. AGGREGATE MAX keeps the score
 * failedAt, since every index scores an entry the same.
 * KEYS: destination, sources... ARGV: ttl ms. Returns the intersection's size.
 */
export const INTERSECT = new LuaCommand('dlq-intersect', LUA['dlq-intersect']);

/**
 * One page of an index, newest first, within [from, to], in O(log N + limit): after a
 * cursor by the cursor entry's rank; if that entry left the index since, by its score,
 * skipping the ties already returned (ties sort by id, descending). Without a cursor,
 * from `offset`. Returns {total, id1, score1, id2, score2, ...} with up to limit+1 rows
 * (one more than asked tells the caller there is a next page).
 * KEYS: index. ARGV: from, to, limit, cursorScore, cursorId, offset, withTotal (1/0).
 */
export const PAGE = new LuaCommand('dlq-page', LUA['dlq-page']);

/**
 * Entries' hashes as HGETALL returns them, each in one reply, with a `payload` longer
 * than the limit cut to its first bytes and its full length added as `payloadCut`: a
 * page of large letters crosses the wire and fills the reader's memory with previews.
 * KEYS: entries. ARGV: the longest payload kept whole, in bytes. Returns one flat
 * field/value array per key (empty for a missing entry).
 */
export const READ = new LuaCommand('dlq-read', LUA['dlq-read']);

/**
 * One job of a queue's failed set for the reconciler, its data read only when it is
 * within the limit (a larger job's fields without it, and the start of its JSON).
 * KEYS: the failed set, the job's hash (one queue: one hash tag). ARGV: job id, max data
 * bytes, preview bytes. Returns false for a job no longer failed, else
 * {bytes, data or preview, cut (0/1), name, timestamp, opts, failedReason, stacktrace,
 * atm, attemptsMade, finishedOn, processedOn}.
 */
export const READ_FAILED_JOB = new LuaCommand('dlq-failed-job', LUA['dlq-failed-job']);

/**
 * The reconciler's next page of a queue's failed set, newest first, after the last job it
 * saw (by its id at its score; when that job has left the set, after every later
 * failure), so removals ahead of it shift no unread job past it.
 * KEYS: the failed set. ARGV: page size, the last job's score ('' for the head) and id
 * ('' when only its time is known). Returns {id, score, ...}.
 */
export const FAILED_PAGE = new LuaCommand('dlq-failed-page', LUA['dlq-failed-page']);
