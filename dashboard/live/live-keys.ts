import 'server-only';
import { serializeDeadLetterFilters, type DeadLetterFilters, parseDeadLetterFilters } from '@/dashboard/client/dead-letters-filters';
import { type HistoryRange, parseHistoryRange } from '@/dashboard/client/history-range';
import { parseQueueFilters, serializeQueueFilters, type QueueFilters } from '@/dashboard/client/queue-filters';

/**
 * The live cache's keys, one builder per read. Everything under `live:` is cleared by
 * an action (dashboard/action.ts). The Next.js app reads through these keys
 * (dashboard/reads.ts) and the dashboard's server answers a poll from the same entry
 * (dashboard/live/live-fast-path.ts), so both must build a key the same way: here.
 */
export const liveKeys = {
  overview: () => 'live:overview',
  queuePage: (name: string, filters: QueueFilters) =>
    `live:queue:${name}?${serializeQueueFilters(filters)}&state=${filters.state}` as const,
  queueCounts: (name: string) => `live:queue-counts:${name}` as const,
  queueHistory: (name: string, range: HistoryRange) => `live:history:${name}:${range}` as const,
  overallHistory: (range: HistoryRange) => `live:history:*:${range}` as const,
  workers: () => 'live:workers',
  foreignQueues: () => 'live:foreign-queues',
  job: (queue: string, id: string, logsPage: number) => `live:job:${queue}:${id}:${logsPage}` as const,
  deadLetters: (filters: DeadLetterFilters) => `live:dlq?${serializeDeadLetterFilters(filters)}` as const,
  schedules: () => 'live:schedules',
  webhooks: (page: number) => `live:webhooks?page=${page}` as const,
  webhook: (id: string, page: number) => `live:webhook:${id}?page=${page}` as const,
} satisfies Record<string, (...args: never[]) => `live:${string}`>;

/**
 * The live-cache key a polled GET reads, as its route handler under app/api/live builds
 * it from the same URL; undefined for any other path. Only routes open to every signed-in
 * role whose answer is the cached value itself are listed: a route that turns its value
 * into an error (a job page's 404) or needs a higher role is always left to its handler.
 */
export function liveKeyOfPath(pathname: string, search: URLSearchParams): `live:${string}` | undefined {
  if (!pathname.startsWith('/api/live/')) return undefined;
  const parts = pathname.slice('/api/live/'.length).split('/');
  let segments: string[];
  try {
    // As Next.js hands a dynamic segment to its route: percent-decoded.
    segments = parts.map(decodeURIComponent);
  } catch {
    return undefined;
  }
  const [first, name, sub, ...rest] = segments;
  if (rest.length > 0 || segments.some((s) => s === '')) return undefined;
  switch (first) {
    case 'overview':
      return name === undefined ? liveKeys.overview() : undefined;
    case 'workers':
      return name === undefined ? liveKeys.workers() : undefined;
    case 'schedules':
      return name === undefined ? liveKeys.schedules() : undefined;
    case 'history':
      return name === undefined ? liveKeys.overallHistory(parseHistoryRange(search.get('range')).range) : undefined;
    case 'dead-letters':
      return name === undefined ? liveKeys.deadLetters(parseDeadLetterFilters(search).filters) : undefined;
    case 'queues':
      if (name === undefined) return undefined;
      if (sub === undefined) return liveKeys.queuePage(name, parseQueueFilters(search));
      if (sub === 'history') return liveKeys.queueHistory(name, parseHistoryRange(search.get('range')).range);
      return undefined;
    default:
      return undefined;
  }
}
