import { NextResponse } from 'next/server';
import { redisWatch } from '@/dashboard/dashboard-process';
import { getSession } from '@/dashboard/auth/session';
import { sessionDataSchema } from '@/dashboard/auth/session-options';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const noStore = { 'Cache-Control': 'no-store' };

/**
 * Whether the dashboard reaches Redis, and since when (lib/health/redis-watch.ts), for the
 * outage banner of every tab. It cannot ask Redis whether the session is open — that is
 * the question an outage leaves unanswered — so a cookie sealed by this dashboard is
 * enough: the answer is a status and a time, what /api/health tells anyone.
 */
export async function GET() {
  const session = await getSession();
  if (!sessionDataSchema.safeParse({ ...session }).success) {
    return NextResponse.json({ code: 'UNAUTHENTICATED', message: 'Sign in first' }, { status: 401, headers: noStore });
  }
  return NextResponse.json(redisWatch().state(), { headers: noStore });
}
