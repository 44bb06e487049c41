import { type NextRequest, NextResponse } from 'next/server';
import { liveJson } from '@/dashboard/live/live-route';
import { loadSearchStep } from '@/dashboard/reads';
import { parseSearchStep } from '@/dashboard/client/payload-search-params';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * GET /api/live/queues/:name/search?state=&q=&match=path%3Dvalue&name=&tenant=&from= —
 * one bounded step of a payload search (400 JSON for a bad search, 404 for an unknown queue,
 * 429 beyond the searches a user or the process may run at once).
 */
export async function GET(req: NextRequest, ctx: { params: Promise<{ name: string }> }) {
  const parsed = parseSearchStep(req.nextUrl.searchParams);
  if (!parsed.ok)
    return NextResponse.json({ code: 'VALIDATION', message: parsed.message }, { status: 400, headers: { 'Cache-Control': 'no-store' } });
  const { name } = await ctx.params;
  return liveJson((user) => loadSearchStep(user.username, name, parsed.params));
}
