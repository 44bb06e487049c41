import { LUA } from './lua';
import { LuaCommand } from '../redis/lua-command';
/**
 * The idempotency store's Lua scripts. Each decides and writes in one step, so two
 * workers beginning the same key at once cannot both start. Time is Redis's own (TIME),
 * so workers with skewed clocks still agree on when a lock has lapsed.
 *
 * A record is a hash: status, requestHash, response (JSON), error, retryable ('1'/'0'),
 * lockUntil (ms), owner (who holds the lock, '' for nobody named), attempts, createdAt, updatedAt.
 */

const NOW = LUA['idem-now'];

/**
 * KEYS[1] record. ARGV: requestHash, lockMs, ttlMs, owner ('' for none). A processing
 * record whose owner is the caller's is taken over at once, lock or not.
 * Returns {'started', takeover '0'|'1', attempts} | {'completed', responseJson} |
 * {'in-progress', lockUntil} | {'failed', error} | {'conflict', storedHash}.
 */
export const BEGIN = new LuaCommand('idem-begin', LUA['idem-begin'], [NOW]);

/**
 * KEYS[1] record. ARGV: responseJson, ttlMs. Returns 0 when there is no record (never
 * begun, or expired), 2 when it is already completed (the first stored response stays:
 * replays must keep returning the same outcome), else 1.
 */
export const COMPLETE = new LuaCommand('idem-complete', LUA['idem-complete'], [NOW]);

/**
 * KEYS[1] record. ARGV: error, retryable '1'|'0', ttlMs. Returns 0 when there is no
 * record, 2 when it is already completed (a late failure does not undo a success), else 1.
 */
export const FAIL = new LuaCommand('idem-fail', LUA['idem-fail'], [NOW]);
