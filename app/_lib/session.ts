import 'server-only';
import { getIronSession, type IronSession } from 'iron-session';
import { cookies, headers } from 'next/headers';
import { cache } from 'react';
import { sessionDataSchema, sessionOptions, type SessionData } from '@/lib/auth/session-options';
import type { User } from '@/lib/auth/user-store';
import { readyBullpen } from '@/app/_lib/bullpen';
import { liveCache } from '@/app/_lib/bullpen';
import { CLIENT_HEADER, CLIENT_TOKEN_ENV, decodeClientHeader, type ClientAddress } from '@/lib/http/client-header';
import { sessionSecret, signInService } from './auth-services';

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
 * The signed-in user of this request, or null. The cookie names a server-side session
 * that must still be open (sign-out closes it at once, lib/auth/session-registry.ts) and
 * the user: the record is re-read from Redis (through a 1 s cache, so many tabs do not
 * multiply reads) and its current role is used; a removed user or one whose password or
 * role changed since sign-in (another session epoch) counts as signed out.
 */
export const currentUser = cache(async (): Promise<User | null> => {
  const session = await getSession();
  const data = sessionDataSchema.safeParse({ ...session });
  if (!data.success) return null;
  const { sid, username, sessionEpoch } = data.data;
  const [open, user] = await Promise.all([
    // Not cached: a closed session must stop working on its very next request.
    readyBullpen().then(() => signInService().sessions.isOpen(sid, username)),
    liveCache().get(`user:${username}`, 1_000, async () => {
      await readyBullpen();
      return signInService().users.get(username);
    }),
  ]);
  if (!open || !user || user.sessionEpoch !== sessionEpoch) return null;
  return user;
});
