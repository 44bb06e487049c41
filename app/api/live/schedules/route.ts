import { liveJson } from '@/dashboard/live/live-route';
import { loadSchedules } from '@/dashboard/reads';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The schedules list for the page's poll. */
export async function GET() {
  return liveJson(() => loadSchedules());
}
