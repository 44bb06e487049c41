import 'server-only';
import type { SessionOptions } from 'iron-session';
import { z } from 'zod';
import { roleSchema } from './roles';

export const SESSION_COOKIE = 'bullpen_session';
/** A session lasts 12 hours: one long shift, then sign in again. */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

/**
 * What the sealed cookie holds. The session id must be open in Redis
 * (dashboard/auth/session-registry.ts) and the user record is re-read on every request.
 */
export const sessionDataSchema = z.object({
  sid: z.string(),
  username: z.string(),
  role: roleSchema,
  sessionEpoch: z.number().int(),
  signedInAt: z.number().int(),
});
export type SessionData = Partial<z.infer<typeof sessionDataSchema>>;

/**
 * iron-session options: sealed (encrypted + signed) cookie, httpOnly, SameSite=Lax
 * (no cross-site POST carries it), Secure when the request came over https.
 */
export function sessionOptions(password: string, secure: boolean): SessionOptions {
  return {
    password,
    cookieName: SESSION_COOKIE,
    ttl: SESSION_TTL_SECONDS,
    cookieOptions: { httpOnly: true, sameSite: 'lax', secure, path: '/' },
  };
}
