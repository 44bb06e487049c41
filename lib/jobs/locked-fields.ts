/**
 * Fields of a payload that an edit-and-replay may not change: the tenant's own ids, and
 * fields that name another resource (a webhook, a vector namespace, a Slack channel, a
 * model, a user). Schema validation alone would let an operator point one tenant's
 * dead letter at another tenant's resource, signed with that resource's secret; to
 * reach another resource, dispatch a new job instead (docs/dead-letters.md).
 *
 * Pure and client-safe: the payload editor shows the same list the server enforces.
 */

/** Payload fields that carry a tenant, locked for every type. */
export const TENANT_FIELDS = ['orgId', 'workspaceId'] as const;

/** The locked top-level payload fields of a type, given the type's own resource fields. */
export function lockedFieldsFor(resourceFields: readonly string[] = []): string[] {
  return [...new Set([...TENANT_FIELDS, ...resourceFields])];
}

/** Which of `fields` differ between the original payload and the edited one (added, removed or changed). */
export function changedLockedFields(original: unknown, edited: unknown, fields: readonly string[]): string[] {
  const before = asRecord(original);
  const after = asRecord(edited);
  return fields.filter((f) => stableJson(before[f]) !== stableJson(after[f]));
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` compare equal; undefined stays distinct from null. */
export function stableJson(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson(obj[k])}`)
    .join(',')}}`;
}
