import { z } from 'zod';
import { tenantIdPart, tenantSchema } from '@/lib/jobs/tenant';
import { digest32 } from '../../shared/hash';

export const MEMORY_KINDS = ['episodic', 'semantic'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

/** Ids go into Redis keys and index members (`<createdAt>|<id>`), hence the narrow alphabet. */
export const memoryIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only');

/** The one base schema of a memory; inputs and patches are picked from it. */
export const memorySchema = z.object({
  id: memoryIdSchema,
  kind: z.enum(MEMORY_KINDS),
  content: z.string().min(1).max(32_000),
  /** 0 (forgettable) to 1 (keep); decay lowers it, cleanup drops what falls below a bar. */
  importance: z.number().min(0).max(1),
  /** The memory's vector, as `<namespace>/<vectorId>`. */
  embeddingId: z.string().min(3).max(400).optional(),
  tenant: tenantSchema,
  userId: tenantIdPart.optional(),
  metadata: z.record(z.string(), z.unknown()),
  /** A semantic memory's episodic sources. */
  sourceIds: z.array(memoryIdSchema).optional(),
  /** Set on an episodic memory once a consolidation has folded it into a semantic one. */
  consolidatedInto: memoryIdSchema.optional(),
  createdAt: z.number().int().nonnegative(),
  updatedAt: z.number().int().nonnegative(),
  accessedAt: z.number().int().nonnegative().optional(),
});
export type Memory = z.infer<typeof memorySchema>;

export const newMemorySchema = memorySchema
  .pick({ kind: true, content: true, importance: true, tenant: true, userId: true, sourceIds: true, embeddingId: true })
  .extend({
    /** Default: a random UUID. */
    id: memoryIdSchema.optional(),
    metadata: memorySchema.shape.metadata.default({}),
    /** Default: now. Importers and tests pass the original time. */
    createdAt: memorySchema.shape.createdAt.optional(),
  });
export type NewMemory = z.input<typeof newMemorySchema>;

export const memoryPatchSchema = memorySchema
  .pick({ content: true, importance: true, metadata: true, embeddingId: true })
  .partial()
  .strict();
export type MemoryPatch = z.infer<typeof memoryPatchSchema>;

/**
 * The id of the semantic memory made from these sources: the same sources always give
 * the same id, so a retried or replayed consolidation finds its earlier result instead
 * of writing a second one.
 */
export function semanticMemoryId(sourceIds: readonly string[]): string {
  return `sem-${digest32([...sourceIds].sort().join('\n'))}`;
}

/** `<namespace>/<vectorId>`, how a memory points at its vector. */
export function embeddingRef(namespace: string, vectorId: string): string {
  return `${namespace}/${vectorId}`;
}

export function parseEmbeddingRef(ref: string): { namespace: string; vectorId: string } | undefined {
  const slash = ref.indexOf('/');
  if (slash <= 0 || slash === ref.length - 1) return undefined;
  return { namespace: ref.slice(0, slash), vectorId: ref.slice(slash + 1) };
}

/** The vector namespace that holds memories' own vectors. */
export const MEMORY_VECTOR_NAMESPACE = 'memories';
