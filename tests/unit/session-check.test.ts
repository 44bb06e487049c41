import { sealData } from 'iron-session';
import { describe, expect, it } from 'vitest';
import {
  CookieSessions,
  sealExpiry,
  sessionCookieOf,
  sessionUser,
  userCacheKey,
  type SessionLookups,
} from '@/dashboard/auth/session-check';
import type { User } from '@/dashboard/auth/user-store';

const SECRET = 'a-unit-test-secret-of-more-than-32-characters';
const alice: User = { username: 'alice', role: 'operator', sessionEpoch: 3 } as User;
const data = { sid: 's'.repeat(32), username: 'alice', role: 'operator', sessionEpoch: 3, signedInAt: 1 };

function lookups(over: Partial<SessionLookups> = {}): SessionLookups & { opens: number } {
  const l = {
    opens: 0,
    isOpen: async () => {
      l.opens++;
      return true;
    },
    user: async (name: string) => (name === 'alice' ? alice : undefined),
    ...over,
  };
  return l;
}

describe('session check', () => {
  it('names the user only while the session is open and the epoch unchanged', async () => {
    expect(await sessionUser(data, lookups())).toBe(alice);
    expect(await sessionUser(data, lookups({ isOpen: async () => false }))).toBeNull();
    expect(await sessionUser({ ...data, sessionEpoch: 2 }, lookups())).toBeNull();
    expect(await sessionUser({ ...data, username: 'bob' }, lookups())).toBeNull();
    expect(await sessionUser({}, lookups())).toBeNull();
    expect(await sessionUser({ ...data, role: 'owner' }, lookups())).toBeNull();
  });

  it('finds the session cookie among others', () => {
    expect(sessionCookieOf(undefined)).toBeUndefined();
    expect(sessionCookieOf('a=1; bullpen_session=Fe26.2*x; b=2')).toBe('Fe26.2*x');
    expect(sessionCookieOf('bullpen_session_old=1; bullpen_session=v')).toBe('v');
    expect(sessionCookieOf('xbullpen_session=v')).toBeUndefined();
    expect(sessionCookieOf('bullpen_session=')).toBeUndefined();
    expect(sessionCookieOf('bullpen_sessionX; a=1')).toBeUndefined();
    expect(sessionCookieOf('bullpen_session=v ; a=1')).toBe('v');
  });

  it('caches each user’s record under a key of its own', () => {
    expect(userCacheKey('alice')).not.toBe(userCacheKey('bob'));
    expect(userCacheKey('alice')).toBe(userCacheKey('alice'));
  });

  it('reads the expiry an iron seal carries', () => {
    expect(sealExpiry('Fe26.2*1*salt*iv*data*1700000000000*hsalt*hmac~2')).toBe(1_700_000_000_000);
    expect(sealExpiry('Fe26.2*1*salt*iv*data**hsalt*hmac~2')).toBeUndefined();
    expect(sealExpiry('Fe26.2*1*salt*iv*data*soon*hsalt*hmac')).toBeUndefined();
    expect(sealExpiry('not a seal')).toBeUndefined();
    expect(sealExpiry('Fe26.2*1*salt*iv*data*1700000000000*hsalt')).toBeUndefined();
    expect(sealExpiry('Fe26.2*1*salt*iv*data*1700000000000*hsalt*hmac*more~2')).toBeUndefined();
  });

  it('unseals a cookie once, checks the open session on every request, and forgets at the seal’s expiry', async () => {
    let t = Date.now();
    const l = lookups();
    const sessions = new CookieSessions({ secret: SECRET, lookups: l, now: () => t, rememberMs: 60_000 });
    const seal = await sealData(data, { password: SECRET, ttl: 120 });
    const cookie = `bullpen_session=${seal}`;
    expect(await sessionUser(data, l)).toBe(alice);
    l.opens = 0;
    for (let i = 0; i < 5; i++) expect(await sessions.userOf(cookie)).toBe(alice);
    expect(l.opens).toBe(5);
    // Past the seal's own expiry (120 s), the remembered data is not used: unsealing again refuses it.
    t += 61_000;
    expect(await sessions.userOf(cookie)).toBe(alice);
    t += 70_000;
    const expiry = sealExpiry(seal) ?? 0;
    expect(t).toBeGreaterThan(expiry);
    const realNow = Date.now;
    Date.now = () => t + 120_000; // iron checks expiry against the wall clock, with 60 s of skew
    try {
      expect(await sessions.userOf(cookie)).toBeNull();
    } finally {
      Date.now = realNow;
    }
  });

  it('remembers an unsealed cookie for rememberMs, never past its seal, and unseals it again at that time', async () => {
    const seal = await sealData(data, { password: SECRET, ttl: 120 });
    const t0 = Date.now();
    let t = t0;
    const sessions = new CookieSessions({ secret: SECRET, lookups: lookups(), now: () => t, rememberMs: 60_000 });
    const remembered = () => (sessions as unknown as { unsealed: Map<string, { until: number }> }).unsealed;
    expect(await sessions.userOf(`bullpen_session=${seal}`)).toBe(alice);
    expect(remembered().get(seal)?.until).toBe(t0 + 60_000);
    t = t0 + 60_000;
    expect(await sessions.userOf(`bullpen_session=${seal}`)).toBe(alice);
    // Unsealed again: remembered until the seal's own expiry, which comes first now.
    expect(remembered().get(seal)?.until).toBe(sealExpiry(seal));
  });

  it('tells a sealed, unexpired cookie without asking Redis', async () => {
    const l = lookups({ user: async () => Promise.reject(new Error('Redis is down')) });
    const sessions = new CookieSessions({ secret: SECRET, lookups: l });
    const seal = await sealData(data, { password: SECRET });
    expect(await sessions.sealed(`bullpen_session=${seal}`)).toBe(true);
    expect(
      await sessions.sealed(`bullpen_session=${await sealData(data, { password: 'another-secret-of-more-than-32-characters!' })}`),
    ).toBe(false);
    expect(await sessions.sealed('a=1')).toBe(false);
    expect(await sessions.sealed(undefined)).toBe(false);
    expect(l.opens).toBe(0);
  });

  it('refuses a cookie sealed with another secret and remembers nothing of it', async () => {
    const sessions = new CookieSessions({ secret: SECRET, lookups: lookups() });
    const forged = await sealData(data, { password: 'another-secret-of-more-than-32-characters!' });
    expect(await sessions.userOf(`bullpen_session=${forged}`)).toBeNull();
    expect(await sessions.userOf('bullpen_session=garbage')).toBeNull();
    expect(await sessions.userOf(undefined)).toBeNull();
  });

  it('bounds what it remembers', async () => {
    const sessions = new CookieSessions({ secret: SECRET, lookups: lookups(), maxRemembered: 2 });
    const seals = await Promise.all([1, 2, 3].map((n) => sealData({ ...data, signedInAt: n }, { password: SECRET })));
    for (const s of seals) expect(await sessions.userOf(`bullpen_session=${s}`)).toBe(alice);
    expect((sessions as unknown as { unsealed: Map<string, unknown> }).unsealed.size).toBe(2);
  });
});
