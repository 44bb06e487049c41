import { LUA } from './lua';
import { LuaCommand } from '@/lib/redis/lua-command';
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
export const CREATE = new LuaCommand('memory-create', LUA['memory-create']);

/**
 * Update if present. KEYS[1] memory hash. ARGV[1] n, ARGV[2 .. 1+2n] field/value pairs
 * to set, ARGV[2+2n ..] fields to delete. Returns 1 when updated, 0 when the memory does
 * not exist (an update must never resurrect a deleted memory as a partial hash).
 */
export const UPDATE = new LuaCommand('memory-update', LUA['memory-update']);

/**
 * Save a consolidation's semantic memory and mark its sources, all or nothing.
 * KEYS[1] semantic memory hash, KEYS[2 .. 1+n] its index sets, KEYS[2+n ..] source hashes.
 * ARGV[1] n, ARGV[2] index member, ARGV[3] '1' to halve source importance, ARGV[4] now,
 * ARGV[5] semantic id, ARGV[6..] field/value pairs of the semantic memory.
 * Returns 0 when the semantic memory already exists (nothing is touched: a retry or a
 * replay must not halve the sources a second time), else the number of sources marked.
 */
export const SAVE_CONSOLIDATED = new LuaCommand('memory-save-consolidated', LUA['memory-save-consolidated']);

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
export const DECAY_BATCH = new LuaCommand('memory-decay-batch', LUA['memory-decay-batch']);
