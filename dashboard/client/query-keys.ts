/**
 * Every react-query key of the dashboard, and the URL each one polls. One module, so
 * an invalidation after a mutation names exactly what it changed and two widgets
 * showing the same data share one request.
 */
export const queryKeys = {
  all: ['bullpen'] as const,
  overview: () => [...queryKeys.all, 'overview'] as const,
  queue: (name: string, search: string) => [...queryKeys.all, 'queue', name, search] as const,
  queueAll: (name: string) => [...queryKeys.all, 'queue', name] as const,
  /** One job with one page of its log (1 = newest lines). */
  job: (queue: string, id: string, logsPage = 1) => [...queryKeys.all, 'job', queue, id, logsPage] as const,
  /** Every log page of a job: what an action on the job invalidates. */
  jobAll: (queue: string, id: string) => [...queryKeys.all, 'job', queue, id] as const,
  bulk: (operationId: string) => [...queryKeys.all, 'bulk', operationId] as const,
  deadLetters: (search: string) => [...queryKeys.all, 'dead-letters', search] as const,
  schedules: () => [...queryKeys.all, 'schedules'] as const,
  health: () => [...queryKeys.all, 'health'] as const,
  redis: () => [...queryKeys.all, 'redis'] as const,
  webhook: (id: string, page: number) => [...queryKeys.all, 'webhook', id, page] as const,
  workers: () => [...queryKeys.all, 'workers'] as const,
  /** A queue's history over a range, or (`queue` null) every queue's. */
  history: (queue: string | null, range: string) => [...queryKeys.all, 'history', queue ?? '*', range] as const,
};

/**
 * Every live JSON endpoint of the dashboard, one convention: a route under
 * `app/api/live/`, answered through `liveJson` (session required, no-store), its URL
 * built here. GET unless marked.
 */
export const liveUrls = {
  overview: () => '/api/live/overview',
  queue: (name: string, search: string) => `/api/live/queues/${encodeURIComponent(name)}${search ? `?${search}` : ''}`,
  job: (queue: string, id: string, logsPage = 1) =>
    `/api/live/queues/${encodeURIComponent(queue)}/jobs/${encodeURIComponent(id)}${logsPage > 1 ? `?logs=${logsPage}` : ''}`,
  bulk: (operationId: string) => `/api/live/bulk/${encodeURIComponent(operationId)}`,
  /** What "Retry all failed" would skip, and why (operators only). */
  /** One step of a payload search (`serializeSearchStep`). */
  search: (queue: string, search: string) => `/api/live/queues/${encodeURIComponent(queue)}/search?${search}`,
  retryPreview: (queue: string) => `/api/live/queues/${encodeURIComponent(queue)}/retry-preview`,
  deadLetters: (search: string) => `/api/live/dead-letters${search ? `?${search}` : ''}`,
  schedules: () => '/api/live/schedules',
  /** A pattern's next fire times as the operator types (operators only). */
  schedulePreview: () => '/api/live/schedules/preview',
  health: () => '/api/live/health',
  /** Whether the dashboard reaches Redis, and since when: answered from memory, never from Redis (the outage banner). */
  redis: () => '/api/live/redis',
  workers: () => '/api/live/workers',
  /** One webhook: its state, window failures and a page of deliveries. */
  webhook: (id: string, page: number) => `/api/live/webhooks/${encodeURIComponent(id)}${page > 1 ? `?page=${page}` : ''}`,
  /** Throughput, failures and percentiles over `range` (`?range=7d`): of one queue, or of all. */
  queueHistory: (queue: string, range: string) =>
    `/api/live/queues/${encodeURIComponent(queue)}/history?range=${encodeURIComponent(range)}`,
  history: (range: string) => `/api/live/history?range=${encodeURIComponent(range)}`,
  /** POST `{type, text, original?}`: a payload checked against its type's schema (operators only). */
  payloadCheck: () => '/api/live/payload-check',
  /** The tab's Server-Sent Events for the live URLs it shows (dashboard/live/live-stream-route.ts). */
  stream: (subjects: readonly string[]) => `/api/live/stream?${subjects.map((s) => `s=${encodeURIComponent(s)}`).join('&')}`,
};

/**
 * Export downloads (operators only): `search` is the page's filters without paging
 * (`serializeQueueFilters({ state, name, tenant })`, `serializeDeadLetterFilters(withoutPaging(f))`).
 */
export const exportUrls = {
  queue: (name: string, search: string, format: 'csv' | 'ndjson') =>
    `/api/export/queues/${encodeURIComponent(name)}?${search ? `${search}&` : ''}format=${format}`,
  deadLetters: (search: string, format: 'csv' | 'ndjson') => `/api/export/dead-letters?${search ? `${search}&` : ''}format=${format}`,
};

/** Poll interval of live widgets; paused while the tab is hidden. */
export const LIVE_REFETCH_MS = 3_000;

/**
 * Poll interval of the Redis state behind the outage banner: an outage shows in every open
 * tab within 5 s (the watch finds it within 1.7 s); the answer comes from memory.
 */
export const REDIS_REFETCH_MS = 1_000;

/**
 * A tab whose stream sent nothing (not even a heartbeat, at least one every 2 s) for this
 * long counts it broken, says so and polls: a broken stream shows within 5 s.
 */
export const STREAM_SILENCE_MS = 4_000;

/** After a stream broke or was refused, the tab tries again after this, doubling up to STREAM_RETRY_MAX_MS. */
export const STREAM_RETRY_MS = 3_000;
export const STREAM_RETRY_MAX_MS = 30_000;

/** Poll interval of the hourly history charts (24 h and longer): the worker writes its tallies every 5 s. */
export const HISTORY_REFETCH_MS = 10_000;
