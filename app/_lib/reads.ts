import 'server-only';
import { readyBullpen } from '@/app/_lib/bullpen';
import { readJobPage, type JobPage } from '@/lib/dashboard/job-page';
import { liveCache, LIVE_TTL_MS } from '@/lib/dashboard/live-cache';
import { readOverview, type Overview } from '@/lib/dashboard/queue-overview';
import { readQueuePage, type QueuePage } from '@/lib/dashboard/queue-page';
import { serializeQueueFilters, type QueueFilters } from '@/lib/dashboard/queue-filters';

/**
 * The reads pages and live endpoints share, each through the live cache, so a page
 * render and every tab's poll within ~1.5 s cost Redis one read. Keys start with
 * `live:` (actions clear that prefix after a change).
 */
export function loadOverview(): Promise<Overview> {
  return liveCache().get('live:overview', LIVE_TTL_MS, async () => readOverview(await readyBullpen(), Date.now()));
}

export function loadQueuePage(name: string, filters: QueueFilters): Promise<QueuePage> {
  const key = `live:queue:${name}?${serializeQueueFilters(filters)}&state=${filters.state}`;
  return liveCache().get(key, LIVE_TTL_MS, async () => readQueuePage(await readyBullpen(), name, filters));
}

export function loadJobPage(queue: string, id: string, logsPage = 1): Promise<JobPage | null> {
  return liveCache().get(`live:job:${queue}:${id}:${logsPage}`, LIVE_TTL_MS, async () =>
    readJobPage(await readyBullpen(), queue, id, logsPage),
  );
}
