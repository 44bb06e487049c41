import 'server-only';
import { getBullpen } from '@/app/_lib/bullpen';
import { serializeDeadLetterFilters, type DeadLetterFilters } from '@/lib/dashboard/dead-letters-filters';
import { readDeadLetterList, type DeadLetterList } from '@/lib/dashboard/dead-letters-read';
import { liveCache, LIVE_TTL_MS } from '@/lib/dashboard/live-cache';

/**
 * One page of dead letters through the live cache: the page render and every open
 * tab's poll of the same filters within ~1.5 s share one read. The key is the
 * serialised filters, so equal filters share it whatever order the URL had.
 */
export function loadDeadLetterList(filters: DeadLetterFilters): Promise<DeadLetterList> {
  const key = `live:dlq?${serializeDeadLetterFilters(filters)}`;
  return liveCache().get(key, LIVE_TTL_MS, () => readDeadLetterList(getBullpen(), filters, Date.now()));
}
