import type { PayloadOf } from '@/lib/jobs/registry';
import type { JobHandler } from '@/lib/runtime/handler';
import { DeletionReceipts } from '@/lib/domain/deletion/deletion-receipts';
import { tenantKey } from '@/lib/domain/deletion/tenant-key';
import { TenantEraser, type ErasureReport } from '@/lib/domain/deletion/tenant-eraser';
import { tenantOfPayload } from '@/lib/domain/deletion/tenant-of-payload';
import { tenantStores } from '@/lib/domain/tenant-stores';
import type { HandlerDeps } from './deps';

type Payload = PayloadOf<'data-deletion'>;

export type DataDeletionResult = ErasureReport & { tenant: string };

/**
 * data-deletion: deletes all of a tenant's data (an organisation with its workspaces,
 * or one workspace) from every tenant store — memories, vectors, sessions and their
 * archives, trajectories, samples, models, quotas, usage, violations, Slack cursors,
 * audit entries and export files — then counts what remains in each. Anything left
 * (a write that raced the deletion) fails the attempt so the retry deletes it; other
 * tenants are never touched. Once verified, a receipt and an audit entry without a
 * tenant tag (so they outlive the data) record it, once per job id.
 */
export function createDataDeletionHandler(deps: HandlerDeps): JobHandler<Payload, DataDeletionResult> {
  const { bullpen } = deps;
  const receipts = new DeletionReceipts(bullpen.redis, bullpen.keys);

  return async (ctx) => {
    const tenant = tenantOfPayload(ctx.tenant, ctx.data);
    const stores = tenantStores(bullpen);
    await ctx.progress(0, 'deleting', { stores: stores.length });
    const report = await new TenantEraser(stores).erase(tenant, {
      signal: ctx.signal,
      onProgress: (done, total, store) =>
        ctx.progress(Math.min(99, (100 * done) / total), done <= stores.length ? 'deleting' : 'verifying', { store }),
    });
    if (!report.complete) {
      const left = Object.entries(report.remaining)
        .filter(([, n]) => n > 0)
        .map(([s, n]) => `${s}: ${n}`);
      // Retryable on purpose: these are records written while the deletion ran.
      throw new Error(`Tenant ${tenantKey(tenant)} still has data after deletion (${left.join(', ')})`);
    }
    // Audit first, receipt second: a crash between them repeats the audit line rather than losing it.
    if (!(await receipts.get(ctx.jobId))) {
      await bullpen.audit.append({
        actor: 'job:data-deletion',
        action: 'tenant.delete',
        target: { kind: 'tenant', id: tenantKey(tenant) },
        details: { jobId: ctx.jobId, reason: ctx.data.reason, deleted: report.deleted },
      });
      await receipts.record({
        jobId: ctx.jobId,
        tenant,
        ...(ctx.data.reason ? { reason: ctx.data.reason } : {}),
        deleted: report.deleted,
        remaining: report.remaining,
        completedAt: Date.now(),
      });
    }
    await ctx.progress(100, 'complete', { remaining: 0 });
    return { ...report, tenant: tenantKey(tenant) };
  };
}
