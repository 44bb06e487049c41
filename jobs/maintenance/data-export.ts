import type { z } from 'zod';
import type { dataExportSchema } from './schemas';
import type { JobHandler } from '@/lib/runtime/handler';
import { tenantOfPayload } from './deletion/tenant-of-payload';
import { exportIdFor } from './exports/tenant-exporter';
import { exportableStores } from '../tenant-stores';
import type { ExportResult } from './audit-export';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof dataExportSchema>;

/**
 * data-export: writes all of a tenant's data (an organisation's, or one workspace's) to
 * `<dataDir>/exports/<orgId>/data-<jobId>/<store>.jsonl`, one file per tenant store,
 * with a manifest of counts and checksums. Each store's file is renamed into place when
 * complete and checkpointed, so a retry continues with the next store.
 */
export function createDataExportHandler(stores: AppStores): JobHandler<Payload, ExportResult> {
  const { exporter } = stores;

  return async (ctx) => {
    const tenant = tenantOfPayload(ctx.tenant, ctx.data);
    const exportId = exportIdFor('data', ctx.jobId);
    const tenantData = exportableStores(stores);
    await ctx.progress(0, 'exporting', { stores: tenantData.length });
    const { manifest, dir } = await exporter.run({
      exportId,
      kind: 'data',
      tenant,
      jobId: ctx.jobId,
      now: Date.now(),
      sources: tenantData.map((s) => ({ name: s.name, records: () => s.exportByTenant(tenant) })),
      signal: ctx.signal,
      onProgress: (done, total, store, records) => ctx.progress(Math.min(99, (100 * done) / total), 'exporting', { store, records }),
    });
    await ctx.progress(100, 'complete', { records: manifest.totalRecords });
    return { exportId, dir, manifest };
  };
}
