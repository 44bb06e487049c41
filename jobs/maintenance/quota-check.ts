import type { z } from 'zod';
import type { quotaCheckSchema } from './schemas';
import type { JobHandler } from '@/lib/runtime/handler';
import { tenantKey } from '@/lib/jobs/tenant-key';
import type { QuotaMetric } from './quotas/quota';
import { QuotaChecker, type QuotaCheckResult, type UsageMeter } from './quotas/quota-checker';
import { storageMeter } from './quotas/storage-meter';
import { utcDay } from './quotas/usage-store';
import { exportableStores } from '../tenant-stores';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof quotaCheckSchema>;

/** Days of job counters kept; older ones are pruned by the check. */
const USAGE_DAYS_KEPT = 35;

/**
 * quota-check: measures each tenant's usage against its quota (all tenants, or one
 * organisation's) — record counts of the memories, vectors, sessions and trajectories
 * stores, the day's job counter, storage bytes — records each violation once per hour
 * window and raises a `quota_violation` alert for the new ones only, so a retry or a
 * second run within the hour alerts nobody twice. Runs hourly.
 */
export function createQuotaCheckHandler(stores: AppStores): JobHandler<Payload, QuotaCheckResult> {
  const { quotas, usage, violations } = stores;

  return async (ctx) => {
    const now = Date.now();
    const tenantData = exportableStores(stores);
    const meters: Partial<Record<QuotaMetric, UsageMeter>> = {
      jobsPerDay: async (t) => {
        await usage.prune(t, USAGE_DAYS_KEPT, now);
        return usage.jobsOn(t, utcDay(now));
      },
      storageBytes: storageMeter(tenantData),
    };
    for (const metric of ['memories', 'vectors', 'sessions', 'trajectories'] as const) {
      const store = tenantData.find((s) => s.name === metric);
      if (store) meters[metric] = (t) => store.countByTenant(t);
    }
    const checker = new QuotaChecker(quotas, violations, meters, (v) =>
      stores.alerter.raise({
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
