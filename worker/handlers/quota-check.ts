import type { PayloadOf } from '@/lib/jobs/registry';
import type { JobHandler } from '@/lib/runtime/handler';
import { tenantKey } from '@/lib/domain/deletion/tenant-key';
import type { QuotaMetric } from '@/lib/domain/quotas/quota';
import { QuotaChecker, type QuotaCheckResult, type UsageMeter } from '@/lib/domain/quotas/quota-checker';
import { QuotaStore } from '@/lib/domain/quotas/quota-store';
import { storageMeter } from '@/lib/domain/quotas/storage-meter';
import { UsageStore, utcDay } from '@/lib/domain/quotas/usage-store';
import { ViolationStore } from '@/lib/domain/quotas/violation-store';
import { exportableStores } from '@/lib/domain/tenant-stores';
import type { HandlerDeps } from './deps';

type Payload = PayloadOf<'quota-check'>;

/** Days of job counters kept; older ones are pruned by the check. */
const USAGE_DAYS_KEPT = 35;

/**
 * quota-check: measures each tenant's usage against its quota (all tenants, or one
 * organisation's) — record counts of the memories, vectors, sessions and trajectories
 * stores, the day's job counter, storage bytes — records each violation once per hour
 * window and raises a `quota_violation` alert for the new ones only, so a retry or a
 * second run within the hour alerts nobody twice. Runs hourly.
 */
export function createQuotaCheckHandler(deps: HandlerDeps): JobHandler<Payload, QuotaCheckResult> {
  const { bullpen } = deps;
  const quotas = new QuotaStore(bullpen.redis, bullpen.keys);
  const usage = new UsageStore(bullpen.redis, bullpen.keys);
  const violations = new ViolationStore(bullpen.redis, bullpen.keys);

  return async (ctx) => {
    const now = Date.now();
    const stores = exportableStores(bullpen);
    const meters: Partial<Record<QuotaMetric, UsageMeter>> = {
      jobsPerDay: async (t) => {
        await usage.prune(t, USAGE_DAYS_KEPT, now);
        return usage.jobsOn(t, utcDay(now));
      },
      storageBytes: storageMeter(stores),
    };
    for (const metric of ['memories', 'vectors', 'sessions', 'trajectories'] as const) {
      const store = stores.find((s) => s.name === metric);
      if (store) meters[metric] = (t) => store.countByTenant(t);
    }
    const checker = new QuotaChecker(quotas, violations, meters, (v) =>
      bullpen.alerter.raise({
        reason: 'quota_violation',
        type: 'quota-check',
        message: `Tenant ${tenantKey(v.tenant)} is over its ${v.metric} quota: ${v.usage} > ${v.limit}`,
        fields: { tenant: tenantKey(v.tenant), metric: v.metric, usage: v.usage, limit: v.limit, window: new Date(v.window).toISOString() },
      }),
    );
    const result = await checker.check({
      orgId: ctx.data.orgId ?? ctx.tenant?.orgId,
      now,
      jobId: ctx.jobId,
      signal: ctx.signal,
      onProgress: (checked, total) =>
        ctx.progress(total === 0 ? 99 : Math.min(99, (100 * checked) / total), 'checking', { checked, total }),
    });
    if (result.unmeasured.length)
      ctx.logger.warn({ unmeasured: result.unmeasured }, 'quota limits set for metrics this worker cannot measure');
    await ctx.progress(100, 'complete', {
      tenants: result.tenants,
      violations: result.violations.length,
      newViolations: result.newViolations,
    });
    return result;
  };
}
