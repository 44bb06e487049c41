import { z } from 'zod';
import { tenantSchema, type Tenant } from '@/lib/jobs/tenant';
import { digest32 } from '../../shared/hash';

/** The shapes of a stored vector: what goes in, what comes out, what an index needs. */

export const vectorIdSchema = z.string().min(1).max(256);

export const vectorInputSchema = z.object({
  id: vectorIdSchema,
  /** The text the vector was made from: a reindex embeds it again. */
  text: z.string().min(1).max(32_000),
  vector: z
    .custom<Float32Array>((v) => v instanceof Float32Array, 'a Float32Array')
    .refine((v) => v.length > 0 && v.length <= 8_192, 'from 1 to 8192 dimensions'),
  model: z.string().min(1).max(200),
  /** Whose vector; none for shared reference data that belongs to no tenant. */
  tenant: tenantSchema.optional(),
  metadata: z.record(z.string(), z.unknown()).default({}),
});
export type VectorInput = z.input<typeof vectorInputSchema>;

export interface StoredVector {
  namespace: string;
  id: string;
  /** The numeric key of this vector in the in-memory ANN graphs. */
  label: number;
  shard: number;
  text: string;
  textHash: string;
  model: string;
  vector: Float32Array;
  tenant?: Tenant;
  metadata: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

/** What an in-memory index needs of a vector (no text, no metadata). */
export interface IndexEntry {
  id: string;
  label: number;
  shard: number;
  model: string;
  vector: Float32Array;
  orgId?: string;
  workspaceId?: string;
}

export interface NamespaceStats {
  namespace: string;
  model?: string;
  dimensions?: number;
  shards: number;
  live: number;
  /** Deleted or replaced since the last rebuild: tombstones in the ANN graphs. */
  deleted: number;
  /** deleted / (live + deleted). */
  deletedRatio: number;
  shardSizes: number[];
  /** (largest − smallest) / mean shard size. */
  imbalance: number;
  generation: number;
  seq: number;
}

export interface LogEntry {
  seq: number;
  op: 'add' | 'del';
  id: string;
  label: number;
  shard: number;
}

export type UpsertOutcome = 'added' | 'replaced' | 'unchanged';

/** The text's fingerprint: with the model, it tells whether a vector needs embedding again. */
export function hashText(text: string): string {
  return digest32(text);
}
