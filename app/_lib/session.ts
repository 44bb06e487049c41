import 'server-only';
import { getIronSession, type IronSession } from 'iron-session';
import { cookies, headers } from 'next/headers';
import { cache } from 'react';
import { sessionDataSchema, sessionOptions, type SessionData } from '@/lib/auth/session-options';
import type { User } from '@/lib/auth/user-store';
import { readyBullpen } from '@/lib/bullpen-singleton';
import { liveCache } from '@/lib/dashboard/live-cache';
import { sessionSecret, signInService } from './auth-services';

/** Whether the browser reached us over https (directly or through a TLS-terminating proxy). */
export async function requestIsHttps(): Promise<boolean> {
  const h = await headers();
  const proto = h.get('x-forwarded-proto')?.split(',')[0]?.trim();
  return proto === 'https' || (h.get('origin') ?? '').startsWith('https://');
}

/** The sealed session cookie of this request (readable and, in actions/routes, writable). */
export async function getSession(): Promise<IronSession<SessionData>> {
  const [store, secret, secure] = await Promise.all([cookies(), sessionSecret(), requestIsHttps()]);
  return getIronSession<SessionData>(store, sessionOptions(secret, secure));
}

/**
 * The signed-in user of this request, or null. The cookie only names the user: the
 * record is re-read from Redis (through a 1 s cache, so many tabs do not multiply
 * reads) and its current role is used; a removed user or one whose password or role
 * changed since sign-in (another session epoch) counts as signed out.
 */
export const currentUser = cache(async (): Promise<User | null> => {
  const session = await getSession();
  const data = sessionDataSchema.safeParse({ ...session });
  if (!data.success) return null;
  const { username, sessionEpoch } = data.data;
  const user = await liveCache().get(`user:${username}`, 1_000, async () => {
    await readyBullpen();
    return signInService().users.get(username);
  });
  if (!user || user.sessionEpoch !== sessionEpoch) return null;
  return user;
});

/** The client's IP for rate limiting: the first x-forwarded-for hop, else x-real-ip. */
export async function clientIp(): Promise<string> {
  const h = await headers();
  return h.get('x-forwarded-for')?.split(',')[0]?.trim() || h.get('x-real-ip') || 'local';
}
