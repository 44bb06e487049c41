import { liveJson } from '@/dashboard/live/live-route';
import { loadOverview } from '@/dashboard/reads';

export const dynamic = 'force-dynamic';

/** GET /api/live/overview — the overview (session required; 401 JSON otherwise). */
export async function GET() {
  return liveJson(() => loadOverview());
}
