import { createHash } from 'node:crypto';

/**
 * A fingerprint of a request for the idempotency store: SHA-256 of its JSON with object
 * keys sorted, so `{a, b}` and `{b, a}` hash the same while any changed value does not.
 * Values JSON cannot hold (undefined, functions) are dropped as JSON.stringify drops them.
 */
export function hashRequest(value: unknown): string {
  return createHash('sha256').update(stableJson(value)).digest('hex');
}

function stableJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) => {
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      }
      return v;
    }) ?? 'undefined'
  );
}
