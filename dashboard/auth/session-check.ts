import 'server-only';
import { unsealData } from 'iron-session';
import type { z } from 'zod';
import { SESSION_COOKIE, SESSION_TTL_SECONDS, sessionDataSchema } from './session-options';
import type { User } from './user-store';

/**
 * The user record is read through the process's live cache under this key for this
 * long, so many tabs do not multiply reads: the app (dashboard/auth/session.ts) and the
 * dashboard's server (scripts/web-server.ts) share one read.
 */
export const userCacheKey = (username: string) => `user:${username}`;
export const USER_CACHE_MS = 1_000;

/** What a session check asks Redis. */
export interface SessionLookups {
  /** Whether the session id is still open for the user (never cached: sign-out must act on the next request). */
  isOpen(sid: string, username: string): Promise<boolean>;
  /** The user's current record (may be cached briefly). */
  user(username: string): Promise<User | undefined>;
}

/**
 * The signed-in user a session's unsealed data names, or null. The session must still
 * be open (sign-out closes it at once, dashboard/auth/session-registry.ts) and the user's
 * record is the one used, with its current role; a removed user, or one whose password
 * or role changed since sign-in (another session epoch), counts as signed out. One rule
 * for the app's pages and actions (dashboard/auth/session.ts) and the server's answer to a
 * poll (dashboard/live/live-fast-path.ts).
 */
export async function sessionUser(data: unknown, lookups: SessionLookups): Promise<User | null> {
  const parsed = sessionDataSchema.safeParse(data);
  return parsed.success ? openSessionUser(parsed.data, lookups) : null;
}

type SessionFields = Pick<z.infer<typeof sessionDataSchema>, 'sid' | 'username' | 'sessionEpoch'>;

async function openSessionUser({ sid, username, sessionEpoch }: SessionFields, lookups: SessionLookups): Promise<User | null> {
  const [open, user] = await Promise.all([lookups.isOpen(sid, username), lookups.user(username)]);
  if (!open || !user || user.sessionEpoch !== sessionEpoch) return null;
  return user;
}

/** The value of the session cookie in a Cookie header, or undefined. */
export function sessionCookieOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}

export interface CookieSessionsOptions {
  secret: string;
  lookups: SessionLookups;
  /** Unsealed cookies remembered at most. @defaultValue 1000 */
  maxRemembered?: number;
  /** How long an unsealed cookie is remembered, at most (never past the seal's own expiry). @defaultValue 60000 */
  rememberMs?: number;
  now?: () => number;
}

/**
 * Session checks from a raw Cookie header, for the dashboard's own HTTP server. Unsealing
 * (PBKDF2 and AES through WebCrypto) is most of a cached poll's CPU, and a tab sends the
 * same sealed cookie on every poll: the unsealed data is remembered by the exact sealed
 * string (which only the secret's holder can make) until the seal's own expiry or
 * `rememberMs`. The open-session and user checks still run on every request.
 */
export class CookieSessions {
  /** Seals that opened into valid session data, with that data (checked once) and until when to trust it. */
  private readonly unsealed = new Map<string, { fields: SessionFields; until: number }>();
  private readonly maxRemembered: number;
  private readonly rememberMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: CookieSessionsOptions) {
    this.maxRemembered = opts.maxRemembered ?? 1_000;
    this.rememberMs = opts.rememberMs ?? 60_000;
    this.now = opts.now ?? Date.now;
  }

  /** The user of the request's session cookie, or null (none, forged, expired, closed, or the user changed). */
  async userOf(cookieHeader: string | undefined): Promise<User | null> {
    const seal = sessionCookieOf(cookieHeader);
    if (!seal) return null;
    const fields = await this.unseal(seal);
    return fields ? openSessionUser(fields, this.opts.lookups) : null;
  }

  /**
   * Whether the header carries a session cookie this dashboard sealed, unexpired: no
   * Redis asked, so it answers during an outage (the Redis-state poll, and nothing else).
   */
  async sealed(cookieHeader: string | undefined): Promise<boolean> {
    const seal = sessionCookieOf(cookieHeader);
    return seal ? (await this.unseal(seal)) !== null : false;
  }

  private async unseal(seal: string): Promise<SessionFields | null> {
    const t = this.now();
    const known = this.unsealed.get(seal);
    if (known && known.until > t) return known.fields;
    this.unsealed.delete(seal);
    // iron-session answers {} for a forged or expired seal: the schema refuses it, and it is not remembered.
    const parsed = sessionDataSchema.safeParse(await unsealData(seal, { password: this.opts.secret, ttl: SESSION_TTL_SECONDS }));
    if (!parsed.success) return null;
    this.unsealed.set(seal, { fields: parsed.data, until: Math.min(t + this.rememberMs, sealExpiry(seal) ?? Number.POSITIVE_INFINITY) });
    while (this.unsealed.size > this.maxRemembered) this.unsealed.delete(this.unsealed.keys().next().value as string);
    return parsed.data;
  }
}

/**
 * The expiry (ms since the epoch) an iron seal carries: `Fe26.2*id*salt*iv*data*expiration*hmacSalt*hmac`,
 * with iron-session's `~2` version after it. Undefined when it has none.
 */
export function sealExpiry(seal: string): number | undefined {
  const fields = seal.split('~')[0].split('*');
  const exp = Number(fields[5]);
  return fields.length === 8 && fields[5] !== '' && Number.isFinite(exp) ? exp : undefined;
}
