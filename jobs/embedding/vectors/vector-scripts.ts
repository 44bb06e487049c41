import { LUA } from './lua';
import { LuaCommand } from '@/lib/redis/lua-command';
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

const APPEND_LOG = LUA['vector-append-log'];

/**
 * Insert or replace one vector.
 * KEYS: 1 meta, 2 labels (zset label → id), 3 log, 4 vector hash, 5 the shard set for a
 * new vector, 6.. the tenant index sets.
 * ARGV: 1 id, 2 model, 3 dimensions, 4 textHash, 5 shard for a new vector, 6 default
 * shard count, 7 orgId ('' for none), 8 workspaceId, 9 now, 10.. field/value pairs.
 * Returns {status, label}: status 0 unchanged (same text and model), 1 added,
 * 2 replaced; or an error reply MODEL or TENANT when refused.
 */
export const UPSERT = new LuaCommand('vector-upsert', LUA['vector-upsert'], [APPEND_LOG]);

/**
 * Delete one vector. KEYS: 1 meta, 2 labels, 3 log, 4 vector hash, 5 its shard set,
 * 6.. its tenant index sets. ARGV: 1 id, 2 the shard the caller read.
 * Returns 1 deleted, 0 absent, -1 when the vector moved shard since the caller read it
 * (the caller reads again and retries).
 */
export const DELETE = new LuaCommand('vector-delete', LUA['vector-delete'], [APPEND_LOG]);

/**
 * Move vectors between two shards and count them in a run record, in one step, so a
 * rebalance that dies midway knows exactly how many of a transfer are done.
 * KEYS: 1 run record, 2 from set, 3 to set, 4.. vector hashes. ARGV: 1 from, 2 to,
 * 3 the run record's counter field, 4 its TTL in ms, 5.. ids (in the order of KEYS 4..).
 * A vector no longer in `from` is skipped. Returns the number moved.
 */
export const MOVE = new LuaCommand('vector-move', LUA['vector-move']);

/**
 * Start a new index generation: every process rebuilds its in-memory graphs from the
 * vectors, and the tombstone count starts again at zero. KEYS: 1 meta.
 * ARGV: 1 now, 2 the new model ('' to keep it). A new model also clears the dimensions,
 * which the first vector of that model sets. Returns the new generation.
 */
export const NEW_GENERATION = new LuaCommand('vector-new-generation', LUA['vector-new-generation']);
