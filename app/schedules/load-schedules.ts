import 'server-only';
import { getBullpen } from '@/app/_lib/bullpen';
import { liveCache, LIVE_TTL_MS } from '@/lib/dashboard/live-cache';
import type { ScheduleSummary } from '@/lib/schedules/schedule-summary';

/**
 * Every schedule with its next fire times and last run, through the live cache: the
 * page render and every open tab's poll within ~1.5 s share one read.
 */
export function loadSchedules(): Promise<ScheduleSummary[]> {
  return liveCache().get('live:schedules', LIVE_TTL_MS, () => getBullpen().schedules.list(Date.now()));
}
