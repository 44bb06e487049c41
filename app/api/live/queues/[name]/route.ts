import type { NextRequest } from 'next/server';
import { parseQueueFilters } from '@/dashboard/client/queue-filters';
import { liveJson } from '@/dashboard/live/live-route';
import { loadQueuePage } from '@/dashboard/reads';

export const dynamic = 'force-dynamic';

/** GET /api/live/queues/:name?state=&page=&size=&name=&tenant= — one page of a queue (404 JSON for an unknown queue). */
export async function GET(req: NextRequest, ctx: { params: Promise<{ name: string }> }) {
  const { name } = await ctx.params;
  return liveJson(() => loadQueuePage(name, parseQueueFilters(req.nextUrl.searchParams)));
}
