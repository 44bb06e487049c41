import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * Idempotency keys follow `<domain>:<userId>:<entityId>:<operation>:<version>` (third
 * docs/requirements.md#retry-idempotency-and-dead-letters). Each part is non-empty and holds no colon, so a key can be split
 * back into its parts for logs.
 */
const part = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[^:\s]+$/, 'no colons or spaces');
export const idempotencyKeyParts = z.object({
  domain: part,
  userId: part,
  entityId: part,
  operation: part,
  version: part,
});
export type IdempotencyKeyParts = z.infer<typeof idempotencyKeyParts>;

export function buildIdempotencyKey(parts: IdempotencyKeyParts): string {
  const p = idempotencyKeyParts.parse(parts);
  return `${p.domain}:${p.userId}:${p.entityId}:${p.operation}:${p.version}`;
}

/**
 * A BullMQ job id derived from a key. BullMQ ids may not be bare integers nor hold
 * colons, so the key is hashed; the same key always gives the same id, which makes
 * a second dispatch with it a no-op while the first job is kept.
 */
export function jobIdForKey(scope: string, key: string): string {
  return `${scope}-${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
}
