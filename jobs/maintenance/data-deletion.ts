import type { z } from 'zod';
import type { dataDeletionSchema } from './schemas';
import type { JobHandler } from '@/lib/runtime/handler';
import { tenantKey } from '@/lib/jobs/tenant-key';
import { TenantEraser, type ErasureReport } from './deletion/tenant-eraser';
import { tenantOfPayload } from './deletion/tenant-of-payload';
import { tenantStores } from '../tenant-stores';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof dataDeletionSchema>;

export type DataDeletionResult = ErasureReport & { tenant: string };

/**
 * data-deletion: deletes all of a tenant's data (an organisation with its workspaces,
 * or one workspace) from every tenant store — memories, vectors, sessions and their
 * archives, trajectories, samples, models, quotas, usage, violations, Slack cursors,
 * the ids behind the audit's pseudonyms (its entries stay: they are the operators' record)
 * and export files — then counts what remains in each. Anything left
 * (a write that raced the deletion) fails the attempt so the retry deletes it; other
 * tenants are never touched. Once verified, a receipt and an audit entry without a
 * tenant tag (so they outlive the data) record it, once per job id.
 */
export function createDataDeletionHandler(stores: AppStores): JobHandler<Payload, DataDeletionResult> {
  const receipts = stores.deletionReceipts;

  return async (ctx) => {
    const tenant = tenantOfPayload(ctx.tenant, ctx.data);
    const tenantData = tenantStores(stores);
    await ctx.progress(0, 'deleting', { stores: tenantData.length });
    const report = await new TenantEraser(tenantData).erase(tenant, {
      signal: ctx.signal,
      onProgress: (done, total, store) =>
        ctx.progress(Math.min(99, (100 * done) / total), done <= tenantData.length ? 'deleting' : 'verifying', { store }),
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
      await stores.audit.append({
        actor: 'job:data-deletion',
        action: 'tenant.delete',
        // The tenant's pseudonym, never its ids: this entry outlives the tenant (docs/decisions/0010-audit-outlives-tenants.md).
        target: { kind: 'tenant', id: tenantKey(await stores.audit.pseudonymOf(tenant)) },
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
