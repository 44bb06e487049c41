import 'server-only';
import { getIronSession, type IronSession } from 'iron-session';
import { cookies, headers } from 'next/headers';
import { cache } from 'react';
import { type SessionLookups, sessionUser, USER_CACHE_MS, userCacheKey } from '@/dashboard/auth/session-check';
import { sessionOptions, type SessionData } from '@/dashboard/auth/session-options';
import type { User } from '@/dashboard/auth/user-store';
import { readyBullpen } from '@/dashboard/dashboard-process';
import { liveCache } from '@/dashboard/dashboard-process';
import { CLIENT_HEADER, CLIENT_TOKEN_ENV, decodeClientHeader, type ClientAddress } from '@/dashboard/http/client-header';
import { sessionSecret, signInService } from './auth-services';
import { boundedRead, SESSION_READ_MS } from '@/dashboard/live/bounded-read';

/**
 * The client of this request as the dashboard's server resolved it (scripts/web-server.ts:
 * the socket's peer, or the first untrusted hop behind TRUSTED_PROXIES). Under a plain
 * `next start` the client is unknown: forwarding headers alone are never believed.
 */
export const requestClient = cache(async (): Promise<ClientAddress> => {
  const h = await headers();
  return decodeClientHeader(h.get(CLIENT_HEADER), process.env[CLIENT_TOKEN_ENV]) ?? { ip: 'unknown', https: false };
});

/** The sealed session cookie of this request (readable and, in actions/routes, writable). */
export async function getSession(): Promise<IronSession<SessionData>> {
  const [store, secret, client] = await Promise.all([cookies(), sessionSecret(), requestClient()]);
  return getIronSession<SessionData>(store, sessionOptions(secret, client.https));
}

/**
 * The signed-in user of this request, or null, by the one session rule
 * (dashboard/auth/session-check.ts). The user record is read through a 1 s cache, so many
 * tabs do not multiply reads; whether the session is open is asked every time.
 */
export const currentUser = cache(async (): Promise<User | null> => {
  const session = await getSession();
  return sessionUser({ ...session }, sessionLookups());
});

/** The session checks against Redis, shared by every request of this process; each bounded in time (bounded-read.ts). */
export function sessionLookups(): SessionLookups {
  return {
    isOpen: (sid, username) =>
      boundedRead(
        'session check',
        async () => {
          await readyBullpen();
          return signInService().sessions.isOpen(sid, username);
        },
        SESSION_READ_MS,
      ),
    user: (username) =>
      boundedRead(
        'user read',
        () =>
          liveCache().get(userCacheKey(username), USER_CACHE_MS, async () => {
            await readyBullpen();
            return signInService().users.get(username);
          }),
        SESSION_READ_MS,
      ),
  };
}
