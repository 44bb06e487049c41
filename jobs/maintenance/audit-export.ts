import type { z } from 'zod';
import type { auditExportSchema } from './schemas';
import type { JobHandler } from '@/lib/runtime/handler';
import { PermanentError } from '@/lib/errors/permanent-error';
import { tenantOfPayload } from './deletion/tenant-of-payload';
import type { ExportManifest } from './exports/export-manifest';
import { exportIdFor } from './exports/tenant-exporter';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof auditExportSchema>;

export interface ExportResult {
  exportId: string;
  /** The export directory. */
  dir: string;
  manifest: ExportManifest;
}

/**
 * audit-export: writes the organisation's audit entries (optionally `from`..`to`) to
 * `<dataDir>/exports/<orgId>/audit-<jobId>/audit.jsonl` with a manifest of counts and
 * checksums. The directory derives from the job id, so a retry finishes the same export
 * and a completed one is returned unchanged.
 */
export function createAuditExportHandler(stores: AppStores): JobHandler<Payload, ExportResult> {
  const { exporter, audit } = stores;

  return async (ctx) => {
    const tenant = tenantOfPayload(ctx.tenant, { orgId: ctx.data.orgId });
    const from = ctx.data.from ? Date.parse(ctx.data.from) : undefined;
    const to = ctx.data.to ? Date.parse(ctx.data.to) : undefined;
    if (from !== undefined && to !== undefined && from > to) {
      throw new PermanentError(`from (${ctx.data.from}) is after to (${ctx.data.to})`, 'VALIDATION');
    }
    const exportId = exportIdFor('audit', ctx.jobId);
    await ctx.progress(0, 'exporting');
    const { manifest, dir } = await exporter.run({
      exportId,
      kind: 'audit',
      tenant,
      jobId: ctx.jobId,
      now: Date.now(),
      range: from !== undefined || to !== undefined ? { from, to } : undefined,
      sources: [{ name: 'audit', records: () => audit.scan({ tenant, from, to }) }],
      signal: ctx.signal,
      onProgress: (done, total, store, records) => ctx.progress((100 * done) / total, 'exporting', { store, records }),
    });
    await ctx.progress(100, 'complete', { records: manifest.totalRecords });
    return { exportId, dir, manifest };
  };
}
