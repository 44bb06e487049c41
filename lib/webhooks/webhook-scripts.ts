import { LUA } from './lua';
import { LuaCommand } from '../redis/lua-command';
/**
 * The webhook store's Lua scripts: each check-and-write happens in one step, so an
 * update never resurrects a deleted webhook and the failure that crosses maxFailures
 * disables the webhook exactly once, however many deliveries fail at the same moment.
 * All keys of the registry share the `{webhooks}` hash tag, so this works on a cluster.
 */

/** KEYS: hook, index. ARGV: fieldsJson, createdAt, id. Returns 0 when the id is taken. */
export const CREATE = new LuaCommand('webhook-create', LUA['webhook-create']);

/**
 * KEYS: hook, failures. ARGV: setJson, delJson, clearFailures '1'|'0'.
 * Returns 0 when the webhook does not exist.
 */
export const UPDATE = new LuaCommand('webhook-update', LUA['webhook-update']);

/**
 * KEYS: hook, deliveries, failures.
 * ARGV: recordJson, keep, ok '1'|'0', at, windowMs, failureMember.
 * Returns {failuresInWindow, disabledNow 0|1, maxFailures}; {-1, 0, 0} when the webhook
 * no longer exists (nothing is written for a deleted webhook).
 */
export const RECORD_DELIVERY = new LuaCommand('webhook-record-delivery', LUA['webhook-record-delivery']);
