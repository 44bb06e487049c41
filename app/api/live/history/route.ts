import type { NextRequest } from 'next/server';
import { parseHistoryRange } from '@/dashboard/client/history-range';
import { liveJson } from '@/dashboard/live/live-route';
import { loadOverallHistory } from '@/dashboard/reads';

export const dynamic = 'force-dynamic';

/** GET /api/live/history?range=1h|24h|7d|30d — every queue's history (a bad range reads the default). */
export async function GET(req: NextRequest) {
  const { range } = parseHistoryRange(req.nextUrl.searchParams.get('range'));
  return liveJson(() => loadOverallHistory(range));
}
