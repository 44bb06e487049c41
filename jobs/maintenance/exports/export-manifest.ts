import { z } from 'zod';
import { tenantSchema } from '@/lib/jobs/tenant';

export const EXPORT_KINDS = ['data', 'audit'] as const;

export const exportedStoreSchema = z.object({
  /** File name in the export directory: `<store>.jsonl`. */
  file: z.string(),
  records: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  /** SHA-256 of the file, so a reader can check it arrived whole. */
  sha256: z.string().regex(/^[a-f0-9]{64}$/),
});
export type ExportedStore = z.infer<typeof exportedStoreSchema>;

const exportMetaSchema = z.object({
  exportId: z.string().min(1),
  kind: z.enum(EXPORT_KINDS),
  tenant: tenantSchema,
  jobId: z.string().min(1),
  startedAt: z.number().int(),
  /** Audit exports: the time range asked for (ms), when one was. */
  range: z.object({ from: z.number().int().optional(), to: z.number().int().optional() }).optional(),
});

/** `progress.json`: the stores already written, rewritten after each; gone once the manifest exists. */
export const exportProgressSchema = exportMetaSchema.extend({
  done: z.record(z.string(), exportedStoreSchema),
});
export type ExportProgress = z.infer<typeof exportProgressSchema>;

/** `manifest.json`: written last, so its presence means the export is complete. */
export const exportManifestSchema = exportMetaSchema.extend({
  completedAt: z.number().int(),
  stores: z.record(z.string(), exportedStoreSchema),
  totalRecords: z.number().int().nonnegative(),
});
export type ExportManifest = z.infer<typeof exportManifestSchema>;
