import { liveJson } from '@/dashboard/live/live-route';
import { loadHealth } from '@/dashboard/reads';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * The full health report (details and latencies) for signed-in users. No live-cache
 * entry of its own: the checker already shares one evaluation per 2 s between every
 * caller, tabs and probes alike.
 */
export async function GET() {
  return liveJson(loadHealth);
}
