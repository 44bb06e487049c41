import type { NextRequest } from 'next/server';
import { parseHistoryRange } from '@/dashboard/client/history-range';
import { liveJson } from '@/dashboard/live/live-route';
import { loadQueueHistory } from '@/dashboard/reads';

export const dynamic = 'force-dynamic';

/** GET /api/live/queues/:name/history?range=1h|24h|7d|30d — one queue's history (404 JSON for an unknown queue). */
export async function GET(req: NextRequest, ctx: { params: Promise<{ name: string }> }) {
  const { name } = await ctx.params;
  const { range } = parseHistoryRange(req.nextUrl.searchParams.get('range'));
  return liveJson(() => loadQueueHistory(name, range));
}
