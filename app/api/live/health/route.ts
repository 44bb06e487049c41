import { liveJson } from '@/app/_lib/live-route';
import { loadHealth } from '@/app/_lib/reads';

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
