import type { Tenant } from '@/lib/jobs/tenant';
import { tenantKey } from '@/lib/jobs/tenant-key';
import type { QuotaMetric, QuotaViolation } from './quota';
import type { QuotaStore } from './quota-store';
import type { ViolationStore } from './violation-store';

const HOUR_MS = 60 * 60 * 1000;
/** Violations kept for reports. @defaultValue 90 days */
export const VIOLATION_RETENTION_MS = 90 * 24 * HOUR_MS;
/** Violations returned in a result (all are recorded). */
const MAX_LISTED = 100;

/** Measures one metric of a tenant. */
export type UsageMeter = (tenant: Tenant) => Promise<number>;

export interface QuotaCheckRequest {
  /** Only this organisation's quotas (its own and its workspaces'). */
  orgId?: string;
  now: number;
  jobId: string;
  signal?: AbortSignal;
  onProgress?(checked: number, total: number): Promise<void>;
}

export interface QuotaCheckResult {
  tenants: number;
  /** Usages above their limit in this hour (up to 100 listed). */
  violations: QuotaViolation[];
  /** How many of them were first seen by this check (and alerted). */
  newViolations: number;
  /** Limits set for a metric this process cannot measure (its store is not installed). */
  unmeasured: QuotaMetric[];
  pruned: number;
}

/**
 * Compares every quota's limits with the tenant's measured usage. A violation is
 * recorded once per tenant, metric and hour window, so re-running the check in the same
 * hour (a retry, a replay, a manual trigger) records and reports nothing new; the
 * caller alerts on `onNewViolation` only.
 */
export class QuotaChecker {
  constructor(
    private readonly quotas: QuotaStore,
    private readonly violations: ViolationStore,
    private readonly meters: Partial<Record<QuotaMetric, UsageMeter>>,
    private readonly onNewViolation: (v: QuotaViolation) => void,
  ) {}

  async check(req: QuotaCheckRequest): Promise<QuotaCheckResult> {
    const window = Math.floor(req.now / HOUR_MS) * HOUR_MS;
    const windowIso = new Date(window).toISOString();
    const total = await this.quotas.count(req.orgId);
    const violations: QuotaViolation[] = [];
    const unmeasured = new Set<QuotaMetric>();
    let checked = 0;
    let created = 0;
    await req.onProgress?.(0, total);

    for await (const quota of this.quotas.list(req.orgId)) {
      req.signal?.throwIfAborted();
      for (const [metric, limit] of Object.entries(quota.limits) as Array<[QuotaMetric, number | undefined]>) {
        if (limit === undefined) continue;
        const meter = this.meters[metric];
        if (!meter) {
          unmeasured.add(metric);
          continue;
        }
        const usage = await meter(quota.tenant);
        if (usage <= limit) continue;
        const violation: QuotaViolation = {
          id: `${tenantKey(quota.tenant)}|${metric}|${windowIso}`,
          tenant: quota.tenant,
          metric,
          limit,
          usage,
          window,
          detectedAt: req.now,
          jobId: req.jobId,
        };
        if (await this.violations.recordOnce(violation)) {
          created++;
          this.onNewViolation(violation);
        }
        if (violations.length < MAX_LISTED) violations.push(violation);
      }
      checked++;
      await req.onProgress?.(checked, Math.max(total, checked));
    }
    const pruned = await this.violations.prune(req.now - VIOLATION_RETENTION_MS, 1_000);
    return { tenants: checked, violations, newViolations: created, unmeasured: [...unmeasured].sort(), pruned };
  }
}
