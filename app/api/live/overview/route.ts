import { liveJson } from '../../../_lib/live-route';
import { loadOverview } from '../../../_lib/reads';

export const dynamic = 'force-dynamic';

/** GET /api/live/overview — the overview (session required; 401 JSON otherwise). */
export async function GET() {
  return liveJson(() => loadOverview());
}
