import 'server-only';
import { AsyncLocalStorage } from 'node:async_hooks';
import { getBullpen, liveCache, processScoped, readyBullpen } from '@/dashboard/dashboard-process';
import type { Bullpen } from '@/lib/bullpen';
import type { DeadLetterFilters } from '@/dashboard/client/dead-letters-filters';
import { readDeadLetterList, type DeadLetterList } from '@/dashboard/dead-letters/dead-letters-read';
import { readJobPage, type JobPage } from '@/dashboard/jobs/job-page';
import { LIVE_TTL_MS, LIVE_WATCH_MS } from '@/dashboard/live/live-cache';
import { liveKeys } from '@/dashboard/live/live-keys';
import { readOverview, readStateCounts, type Overview, type StateCounts } from '@/dashboard/queues/queue-overview';
import type { QueueFilters } from '@/dashboard/client/queue-filters';
import { readQueuePage, type QueuePage } from '@/dashboard/queues/queue-page';
import { readSearchStep, type SearchStep } from '@/dashboard/queues/payload-search';
import { serializeSearchStep, type SearchStepParams } from '@/dashboard/client/payload-search-params';
import { resolveQueue } from '@/dashboard/queues/queue-ref';
import { SearchSlots } from '@/dashboard/queues/search-slots';
import { readForeignQueues, type ForeignQueues } from '@/dashboard/queues/foreign-queues';
import { readWorkersView, type WorkersView } from '@/dashboard/workers/workers-view';
import type { HistoryRange } from '@/dashboard/client/history-range';
import { readOverallHistory, readQueueHistory, type OverallHistory, type QueueHistory } from '@/dashboard/history/queue-history';
import { isAppError } from '@/lib/errors/app-error';
import { BulkRunner, type BulkOperation } from '@/dashboard/live/bulk-runner';
import { QueueOperations, type RetryPreview } from '@/dashboard/queues/queue-operations';
import { readWebhookDetail, readWebhookList, type WebhookDetail, type WebhookList } from '@/dashboard/webhooks/webhooks-read';
import type { HealthReport } from '@/lib/health/health-status';
import type { ScheduleSummary } from '@/lib/schedules/schedule-summary';

/** Set while a live route answers a tab's poll (`asPoll`): what it reads is kept fresh for the next poll. */
const polling = new AsyncLocalStorage<true>();

/**
 * Runs a live route's read as a tab's poll: every key it reads is kept fresh in the
 * background while tabs keep polling (dashboard/live/live-cache.ts, `watchMs`). A page
 * render does not start that (its tab polls next, through a route, if it stays open), so
 * a page nobody keeps open costs no background reads.
 */
export function asPoll<T>(read: () => Promise<T>): Promise<T> {
  return polling.run(true, read);
}

/**
 * The one way a page or a live route reads: the read model, on the ready Bullpen, through
 * the live cache under `key` (dashboard/live/live-keys.ts), so a page render and every
 * tab's poll within ~1.5 s cost Redis one read. A one-off read (a search step) is never
 * kept fresh, even when polled.
 */
function liveRead<T>(
  key: `live:${string}`,
  read: (bullpen: Bullpen, now: number) => Promise<T>,
  kind: 'live' | 'once' = 'live',
): Promise<T> {
  return liveCache().get(key, LIVE_TTL_MS, async () => read(await readyBullpen(), Date.now()), {
    watchMs: kind === 'live' && polling.getStore() ? LIVE_WATCH_MS : 0,
  });
}

export function loadOverview(): Promise<Overview> {
  return liveRead(liveKeys.overview(), readOverview);
}

export function loadQueuePage(name: string, filters: QueueFilters): Promise<QueuePage> {
  return liveRead(liveKeys.queuePage(name, filters), (b) => readQueuePage(b, name, filters));
}

/**
 * One step of a payload search for `user`, within the process's search bounds
 * (dashboard/queues/search-slots.ts; RATE_LIMITED beyond them). Tabs searching the same
 * thing at the same point share the step.
 */
export function loadSearchStep(user: string, name: string, p: SearchStepParams): Promise<SearchStep> {
  const match = p.path !== undefined ? `${p.path}=${p.value ?? ''}` : undefined;
  const slots = processScoped('search-slots', () => new SearchSlots());
  return slots.run(user, () =>
    liveRead(`live:search:${name}?${serializeSearchStep({ ...p, match })}`, (b) => readSearchStep(b, name, p), 'once'),
  );
}

/** A queue's count per state (O(1) each): what the page needs to choose the tab it opens on. */
export function loadQueueCounts(name: string): Promise<StateCounts> {
  return liveRead(liveKeys.queueCounts(name), async (b) => readStateCounts((await resolveQueue(b, name)).queue));
}

/** Whether a URL's queue is one the dashboard shows: the job table's, or a foreign queue that exists under a configured prefix. */
export async function queueExists(name: string): Promise<boolean> {
  try {
    await resolveQueue(await readyBullpen(), name);
    return true;
  } catch (err) {
    // VALIDATION: a key named like a queue's meta that is not BullMQ's; a page has no 400, so it is no queue here.
    if (isAppError(err) && (err.code === 'NOT_FOUND' || err.code === 'VALIDATION')) return false;
    throw err;
  }
}

/** One queue's throughput, failures and percentiles over a range (NOT_FOUND for an unknown queue). */
export function loadQueueHistory(name: string, range: HistoryRange): Promise<QueueHistory> {
  return liveRead(liveKeys.queueHistory(name, range), (b, now) => readQueueHistory(b, name, range, now));
}

/**
 * Every queue's history over a range: the summed chart and each queue's percentiles. The
 * last hour's bars are the overview's own per-minute series (one read of BullMQ's counters
 * for both widgets), so its chart and its tiles always agree.
 */
export function loadOverallHistory(range: HistoryRange): Promise<OverallHistory> {
  return liveRead(liveKeys.overallHistory(range), async (b) => {
    if (range !== '1h') return readOverallHistory(b, range, Date.now());
    const overview = await loadOverview();
    return readOverallHistory(b, range, overview.generatedAt, new Map(overview.queues.map((q) => [q.name, q.series])));
  });
}

/** Every worker process and what it runs now. */
export function loadWorkers(): Promise<WorkersView> {
  return liveRead(liveKeys.workers(), (b, now) => readWorkersView(b, now));
}

/** The BullMQ queues the job table does not define, with their counts. */
export function loadForeignQueues(): Promise<ForeignQueues> {
  return liveRead(liveKeys.foreignQueues(), (b) => readForeignQueues(b));
}

export function loadJobPage(queue: string, id: string, logsPage = 1): Promise<JobPage | null> {
  return liveRead(liveKeys.job(queue, id, logsPage), (b) => readJobPage(b, queue, id, logsPage));
}

/** One page of dead letters; the key is the serialised filters, so equal filters share it whatever order the URL had. */
export function loadDeadLetterList(filters: DeadLetterFilters): Promise<DeadLetterList> {
  return liveRead(liveKeys.deadLetters(filters), (b, now) => readDeadLetterList(b, filters, now));
}

/** Every schedule with its next fire times and last run. */
export function loadSchedules(): Promise<ScheduleSummary[]> {
  return liveRead(liveKeys.schedules(), (b, now) => b.schedules.list(now));
}

/** One page of webhooks with their state and failures in the window. */
export function loadWebhookList(page: number): Promise<WebhookList> {
  return liveRead(liveKeys.webhooks(page), (b) => readWebhookList(b, page));
}

/** One webhook with a page of its deliveries (NOT_FOUND for an unknown id). */
export function loadWebhookDetail(id: string, page: number): Promise<WebhookDetail> {
  return liveRead(liveKeys.webhook(id, page), (b) => readWebhookDetail(b, id, page));
}

/**
 * The health report. Not through `readyBullpen`: while Redis is down this is the read
 * that must still answer (unhealthy, with the reason). The checker caches it itself.
 */
export function loadHealth(): Promise<HealthReport> {
  return getBullpen().health.check();
}

/** A background bulk operation's progress, read afresh at each poll (its record is in Redis). */
export function loadBulkOperation(id: string): Promise<BulkOperation | undefined> {
  const b = getBullpen();
  return new BulkRunner(b.redis, b.keys, b.logger).get(id);
}

/** What "Retry all failed" would retry and skip now, for its confirmation; never cached. */
export function loadRetryPreview(name: string): Promise<RetryPreview> {
  return new QueueOperations(getBullpen()).retryPreview(name);
}
