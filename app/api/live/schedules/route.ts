import { liveJson } from '@/app/_lib/live-route';
import { loadSchedules } from '@/app/_lib/reads';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The schedules list for the page's poll. */
export async function GET() {
  return liveJson(() => loadSchedules());
}
