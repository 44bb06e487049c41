import 'server-only';
import { NextResponse } from 'next/server';
import { roleAtLeast, type Role } from '@/dashboard/auth/roles';
import type { User } from '@/dashboard/auth/user-store';
import { isAppError } from '@/lib/errors/app-error';
import { errorReference } from '@/lib/errors/error-reference';
import { getBullpen } from '@/dashboard/dashboard-process';
import { asPoll } from '@/dashboard/reads';
import { boundedRead, LIVE_READ_MS } from './bounded-read';
import { currentUser } from '@/dashboard/auth/session';

const noStore = { 'Cache-Control': 'no-store' };

/**
 * Wraps a GET route handler's body for the dashboard's JSON endpoints: 401 JSON
 * without a session, 403 JSON below `minRole`, an AppError as its own status, and
 * `Cache-Control: no-store` (the freshness comes from the server's live cache); 503
 * JSON while Redis is unreachable, and once a read has waited LIVE_READ_MS on it.
 */
export async function liveJson(load: (user: User) => Promise<unknown>, minRole: Role = 'viewer'): Promise<NextResponse> {
  let user: User | null;
  try {
    user = await currentUser();
  } catch (err) {
    // The session checks are bounded (bounded-read.ts): a hung or killed Redis is told at once, in words.
    const message = isAppError(err) && err.code === 'UNAVAILABLE' ? err.message : 'Redis is unreachable';
    return NextResponse.json({ code: 'UNAVAILABLE', message }, { status: 503, headers: noStore });
  }
  if (!user) return NextResponse.json({ code: 'UNAUTHENTICATED', message: 'Sign in first' }, { status: 401, headers: noStore });
  if (!roleAtLeast(user.role, minRole)) {
    return NextResponse.json({ code: 'FORBIDDEN', message: `Requires the ${minRole} role` }, { status: 403, headers: noStore });
  }
  try {
    // A tab's poll: what it reads is kept fresh for its next one (dashboard/reads.ts).
    return NextResponse.json(await asPoll(() => boundedRead('live read', () => load(user), LIVE_READ_MS)), { headers: noStore });
  } catch (err) {
    if (isAppError(err)) {
      return NextResponse.json({ code: err.code, message: err.message }, { status: err.status, headers: noStore });
    }
    const ref = errorReference();
    getBullpen().logger.error({ err, ref }, 'live endpoint failed');
    return NextResponse.json(
      { code: 'INTERNAL', message: `The read failed; the dashboard log has the details under reference ${ref}`, ref },
      { status: 500, headers: noStore },
    );
  }
}
