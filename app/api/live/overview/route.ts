import { liveJson } from '@/app/_lib/live-route';
import { loadOverview } from '@/app/_lib/reads';

export const dynamic = 'force-dynamic';

/** GET /api/live/overview — the overview (session required; 401 JSON otherwise). */
export async function GET() {
  return liveJson(() => loadOverview());
}
