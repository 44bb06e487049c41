import { z } from 'zod';
import type { Keyspace } from '@/lib/redis/keys';

export const vectorNamespaceSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only');

/**
 * A key of one vector namespace. Each namespace has a hash tag of its own
 * (`{vec:<namespace>}`): its scripts touch one slot, and namespaces spread over a
 * cluster's shards.
 */
export function namespaceKey(keys: Keyspace, namespace: string, ...parts: Array<string | number>): string {
  return keys.tagged(`vec:${namespace}`, ...parts);
}
