import type { PayloadOf } from '@/lib/jobs/registry';
import type { JobHandler } from '@/lib/runtime/handler';
import { tenantOfPayload } from '@/lib/domain/deletion/tenant-of-payload';
import { exportIdFor, TenantExporter } from '@/lib/domain/exports/tenant-exporter';
import { exportableStores } from '@/lib/domain/tenant-stores';
import type { ExportResult } from './audit-export';
import type { HandlerDeps } from './deps';

type Payload = PayloadOf<'data-export'>;

/**
 * data-export: writes all of a tenant's data (an organisation's, or one workspace's) to
 * `<dataDir>/exports/<orgId>/data-<jobId>/<store>.jsonl`, one file per tenant store,
 * with a manifest of counts and checksums. Each store's file is renamed into place when
 * complete and checkpointed, so a retry continues with the next store.
 */
export function createDataExportHandler(deps: HandlerDeps): JobHandler<Payload, ExportResult> {
  const { bullpen } = deps;
  const exporter = new TenantExporter(TenantExporter.rootFor(bullpen.config.dataDir));

  return async (ctx) => {
    const tenant = tenantOfPayload(ctx.tenant, ctx.data);
    const exportId = exportIdFor('data', ctx.jobId);
    const stores = exportableStores(bullpen);
    await ctx.progress(0, 'exporting', { stores: stores.length });
    const { manifest, dir } = await exporter.run({
      exportId,
      kind: 'data',
      tenant,
      jobId: ctx.jobId,
      now: Date.now(),
      sources: stores.map((s) => ({ name: s.name, records: () => s.exportByTenant(tenant) })),
      signal: ctx.signal,
      onProgress: (done, total, store, records) => ctx.progress(Math.min(99, (100 * done) / total), 'exporting', { store, records }),
    });
    await ctx.progress(100, 'complete', { records: manifest.totalRecords });
    return { exportId, dir, manifest };
  };
}
