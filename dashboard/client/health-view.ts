import type { CheckName, CheckResult, HealthReport, HealthStatus } from '@/lib/health/health-status';
import { unreachableSentence, type RedisState } from '@/lib/health/redis-watch';

/**
 * The health report in words for the health page: one summary sentence and a few
 * facts per check, plus a per-queue table that joins the workers and queues checks.
 * Pure and defensive: details are `Record<string, unknown>`, so a field a newer
 * checker renames shows as "—" instead of breaking the page.
 */

export const CHECK_INFO: Record<CheckName, { title: string; what: string }> = {
  redis: { title: 'Redis', what: 'PING round trip from the dashboard' },
  workers: {
    title: 'Queue workers',
    what: 'BullMQ workers connected to each queue that has a handler: a worker process runs one for each queue it serves',
  },
  queues: { title: 'Queues', what: 'How long the oldest ready job has waited to be picked up' },
  deadLetters: { title: 'Dead letters', what: 'Pending dead letters against the alert threshold' },
};

/** Fixed reason codes of the checker, in words. */
export const REASON_TEXT: Record<string, string> = {
  timeout: 'did not answer within the time limit',
  error: 'failed; the dashboard log has the error',
  'client-list-unavailable': 'Redis refuses CLIENT LIST, so connected workers cannot be counted',
};

export interface Fact {
  label: string;
  value: string;
}

export interface CheckView {
  name: CheckName;
  title: string;
  what: string;
  status: HealthStatus;
  latencyMs: number;
  /** One sentence: what the operator needs first. */
  summary: string;
  facts: Fact[];
}

export interface QueueHealthRow {
  queue: string;
  /** Connected workers; null when unknown (CLIENT LIST refused, check failed). */
  workers: number | null;
  belowMinimum: boolean;
  waiting: number | null;
  oldestWaitingMs: number | null;
  paused: boolean;
}

/** The HTTP status of a health answer: only unhealthy is 503 (degraded still serves). */
export function healthHttpStatus(status: HealthStatus): 200 | 503 {
  return status === 'unhealthy' ? 503 : 200;
}

/** "850 ms", "12 s", "3 min 5 s", "2 h 3 min", "1 d 2 h". */
export function formatDurationMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1_000) return `${Math.round(ms * 10) / 10} ms`;
  const s = Math.floor(ms / 1_000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

/** Queue names a sentence lists before it points at the table instead. */
const MAX_NAMED = 3;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const rec = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** One check in words. */
export function toCheckView(check: CheckResult): CheckView {
  const info = CHECK_INFO[check.name];
  const d = rec(check.details);
  const base = { name: check.name, title: info.title, what: info.what, status: check.status, latencyMs: check.latencyMs };
  const reason = typeof d.reason === 'string' ? d.reason : undefined;
  const since = num(d.since);
  if (reason === 'unreachable' && since !== undefined) {
    const sentence = unreachableSentence({ since });
    return {
      ...base,
      summary: check.name === 'redis' ? `${sentence}.` : `Unknown: ${sentence[0].toLowerCase()}${sentence.slice(1)}.`,
      facts: [{ label: 'Unreachable since', value: new Date(since).toISOString().replace('T', ' ').slice(0, 19) }],
    };
  }
  if (reason && reason !== 'client-list-unavailable') {
    const limit = num(d.timeLimitMs);
    return {
      ...base,
      summary: `The check ${REASON_TEXT[reason] ?? reason}.`,
      facts: limit !== undefined ? [{ label: 'Time limit', value: formatDurationMs(limit) }] : [],
    };
  }
  switch (check.name) {
    case 'redis': {
      const ping = num(d.pingMs) ?? check.latencyMs;
      const at = num(d.degradedAtMs);
      return {
        ...base,
        summary: `PING answered in ${formatDurationMs(ping)}${at !== undefined ? ` (degraded from ${formatDurationMs(at)})` : ''}.`,
        facts: [
          { label: 'PING', value: formatDurationMs(ping) },
          ...(at !== undefined ? [{ label: 'Degraded at', value: formatDurationMs(at) }] : []),
        ],
      };
    }
    case 'workers': {
      const min = num(d.minWorkers);
      const facts: Fact[] = min !== undefined ? [{ label: 'Minimum per queue', value: String(min) }] : [];
      if (reason) return { ...base, summary: `${REASON_TEXT[reason]}.`, facts };
      const total = num(d.total);
      const below = Array.isArray(d.belowMinimum) ? d.belowMinimum.map(String) : [];
      const queues = Object.keys(rec(d.workers)).length;
      const summary =
        total === undefined
          ? 'Connected workers unknown.'
          : below.length === 0
            ? `${count(total, 'queue worker')} connected; every queue has its minimum.`
            : below.length <= MAX_NAMED
              ? `${count(total, 'queue worker')} connected; ${count(below.length, 'queue')} below the minimum: ${below.join(', ')}.`
              : `${count(total, 'queue worker')} connected; ${count(below.length, 'queue')} of ${queues} below the minimum (marked in the table).`;
      return {
        ...base,
        summary,
        facts: [
          ...facts,
          { label: 'Queues watched', value: String(queues) },
          ...(total !== undefined ? [{ label: 'Queue workers', value: String(total) }] : []),
        ],
      };
    }
    case 'queues': {
      const oldest = d.oldestWaitingMs === null ? null : num(d.oldestWaitingMs);
      const degraded = num(d.degradedAfterMs);
      const unhealthy = num(d.unhealthyAfterMs);
      const waiting = Object.values(rec(d.queues)).reduce<number>((n, q) => n + (num(rec(q).waiting) ?? 0), 0);
      return {
        ...base,
        summary:
          oldest === null || oldest === undefined
            ? `Nothing is waiting to be picked up${waiting ? ` (${count(waiting, 'job')} in paused queues)` : ''}.`
            : `The oldest ready job has waited ${formatDurationMs(oldest)}; ${count(waiting, 'job')} waiting in all.`,
        facts: [
          { label: 'Oldest waiting', value: formatDurationMs(oldest ?? null) },
          { label: 'Waiting', value: waiting.toLocaleString('en') },
          ...(degraded !== undefined ? [{ label: 'Degraded after', value: formatDurationMs(degraded) }] : []),
          ...(unhealthy !== undefined ? [{ label: 'Unhealthy after', value: formatDurationMs(unhealthy) }] : []),
        ],
      };
    }
    case 'deadLetters': {
      const pending = num(d.pending);
      const threshold = num(d.threshold);
      return {
        ...base,
        summary:
          pending === undefined
            ? 'Pending dead letters unknown.'
            : pending === 0
              ? 'No dead letter is waiting for an operator.'
              : `${count(pending, 'dead letter')} waiting for an operator${threshold !== undefined ? ` (unhealthy at ${threshold.toLocaleString('en')})` : ''}.`,
        facts: [
          { label: 'Pending', value: pending === undefined ? '—' : pending.toLocaleString('en') },
          ...(threshold !== undefined ? [{ label: 'Unhealthy at', value: threshold.toLocaleString('en') }] : []),
        ],
      };
    }
  }
}

/** Every queue either check reports on, with its workers and waiting jobs, sorted by name. */
export function queueHealthRows(report: Pick<HealthReport, 'checks'>): QueueHealthRow[] {
  const workersCheck = report.checks.find((c) => c.name === 'workers');
  const queuesCheck = report.checks.find((c) => c.name === 'queues');
  const workers = rec(rec(workersCheck?.details).workers);
  const below = new Set(
    Array.isArray(rec(workersCheck?.details).belowMinimum) ? (rec(workersCheck?.details).belowMinimum as unknown[]).map(String) : [],
  );
  const queues = rec(rec(queuesCheck?.details).queues);
  const names = [...new Set([...Object.keys(workers), ...Object.keys(queues)])].sort();
  return names.map((queue) => {
    const q = rec(queues[queue]);
    return {
      queue,
      workers: num(workers[queue]) ?? null,
      belowMinimum: below.has(queue),
      waiting: num(q.waiting) ?? null,
      oldestWaitingMs: num(q.oldestWaitingMs) ?? null,
      paused: q.paused === true,
    };
  });
}

/** The overall status in one sentence for the page head. */
export function overallSentence(report: Pick<HealthReport, 'status' | 'checks'>): string {
  const bad = report.checks.filter((c) => c.status !== 'healthy').map((c) => `${CHECK_INFO[c.name].title.toLowerCase()} ${c.status}`);
  if (report.status === 'healthy') return 'Every check is healthy.';
  return `${report.status === 'unhealthy' ? 'Unhealthy' : 'Degraded'}: ${bad.join(', ')}.`;
}

/**
 * The report as the tab's own Redis state says it is now: a report the page holds from
 * before an outage (its poll cannot be answered meanwhile) must not keep saying "Redis
 * healthy". Unreachable: every check is unhealthy since then, as the server's report says
 * once it can be read (lib/health/health-checker.ts).
 */
export function withRedisState(report: HealthReport, state: Pick<RedisState, 'reachable' | 'since'> | undefined): HealthReport {
  if (!state || state.reachable) return report;
  const redis = report.checks.find((c) => c.name === 'redis');
  if (redis && rec(redis.details).reason === 'unreachable') return report;
  return {
    ...report,
    status: 'unhealthy',
    checks: report.checks.map((c) => ({ ...c, status: 'unhealthy', latencyMs: 0, details: { reason: 'unreachable', since: state.since } })),
  };
}
