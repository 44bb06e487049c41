import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { sealData } from 'iron-session';
import { afterEach, describe, expect, it } from 'vitest';
import { CookieSessions } from '@/dashboard/auth/session-check';
import { SESSION_COOKIE, SESSION_TTL_SECONDS, type SessionData } from '@/dashboard/auth/session-options';
import { SignInService } from '@/dashboard/auth/sign-in';
import type { Bullpen } from '@/lib/bullpen';
import { LiveCache } from '@/dashboard/live/live-cache';
import { createLiveFastPath } from '@/dashboard/live/live-fast-path';
import { liveKeys } from '@/dashboard/live/live-keys';
import { parseQueueFilters } from '@/dashboard/client/queue-filters';
import { readOverview } from '@/dashboard/queues/queue-overview';
import { useTestRedis } from '../helpers/use-test-redis';

const SECRET = 'a-test-session-secret-of-more-than-32-characters';
const server = useTestRedis();
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** The fast path in front of a stand-in for Next.js that answers 299 and counts what reached it. */
async function serve(bullpen: Bullpen, cache: LiveCache) {
  const sessions = new CookieSessions({
    secret: SECRET,
    lookups: {
      isOpen: (sid, username) => new SignInService(bullpen.redis, bullpen.keys).sessions.isOpen(sid, username),
      user: (username) => cache.get(`user:${username}`, 1_000, () => new SignInService(bullpen.redis, bullpen.keys).users.get(username)),
    },
  });
  const fastPath = createLiveFastPath({ cache, userOf: (c) => sessions.userOf(c) });
  const fellThrough: string[] = [];
  const s = http.createServer((req, res) => {
    void fastPath(req, res).then((answered) => {
      if (answered) return;
      fellThrough.push(req.url ?? '');
      res.writeHead(299).end('next');
    });
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  const get = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http
        .get(`${base}${path}`, { headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        })
        .on('error', reject);
    });
  return { get, fellThrough };
}

/** A viewer signed in as the sign-in action does it: a session opened in Redis, its id sealed in the cookie. */
async function signedIn(bullpen: Bullpen, role: 'viewer' | 'admin' = 'viewer') {
  const auth = new SignInService(bullpen.redis, bullpen.keys);
  const username = `u${Math.random().toString(36).slice(2, 10)}`;
  const user = await auth.users.create({ username, role, password: 'correct horse battery staple' });
  const sid = await auth.sessions.open(username);
  const data: SessionData = { sid, username, role: user.role, sessionEpoch: user.sessionEpoch, signedInAt: Date.now() };
  const cookie = `theme=dark; ${SESSION_COOKIE}=${await sealData(data, { password: SECRET, ttl: SESSION_TTL_SECONDS })}`;
  return { auth, username, sid, cookie };
}

describe('the dashboard server answers a poll from the live cache', () => {
  it('answers a signed-in poll of a loaded key with the value’s JSON, as the route would', async () => {
    const bullpen = await server.readyBullpen();
    const cache = new LiveCache({ refreshEveryMs: 0 });
    const { get, fellThrough } = await serve(bullpen, cache);
    const { cookie } = await signedIn(bullpen);

    // Nothing loaded yet: the app's route answers (and would load it).
    expect((await get('/api/live/overview', { cookie })).status).toBe(299);
    const overview = await cache.get(liveKeys.overview(), 1_500, () => readOverview(bullpen, Date.now()), { watchMs: 10_000 });

    const plain = await get('/api/live/overview', { cookie });
    expect(plain.status).toBe(200);
    expect(plain.body.toString()).toBe(JSON.stringify(overview));
    expect(plain.headers['content-type']).toBe('application/json');
    expect(plain.headers['cache-control']).toBe('no-store');
    expect(plain.headers['x-content-type-options']).toBe('nosniff');
    expect(plain.headers['x-frame-options']).toBe('DENY');
    expect(plain.headers['server-timing']).toContain('live-cache');
    expect(plain.headers['content-encoding']).toBeUndefined();

    const zipped = await get('/api/live/overview', { cookie, 'accept-encoding': 'br, gzip;q=0.8' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.body).toString()).toBe(JSON.stringify(overview));
    expect((await get('/api/live/overview', { cookie, 'accept-encoding': 'gzip;q=0' })).headers['content-encoding']).toBeUndefined();
    expect(fellThrough).toEqual(['/api/live/overview']);
  });

  it('finds a queue page under the key its route loads, whatever the order of the URL’s parameters', async () => {
    const bullpen = await server.readyBullpen();
    const cache = new LiveCache({ refreshEveryMs: 0 });
    const { get } = await serve(bullpen, cache);
    const { cookie } = await signedIn(bullpen);
    const filters = parseQueueFilters(new URLSearchParams('state=failed&tenant=acme&size=50'));
    await cache.get(liveKeys.queuePage('notify', filters), 1_500, async () => ({ page: 'failed of acme' }));
    const r = await get('/api/live/queues/notify?size=50&tenant=acme&state=failed', { cookie });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body.toString())).toEqual({ page: 'failed of acme' });
    // Another state, another key: not this value.
    expect((await get('/api/live/queues/notify?size=50&tenant=acme&state=active', { cookie })).status).toBe(299);
  });

  it('leaves every request it cannot vouch for to the app', async () => {
    const bullpen = await server.readyBullpen();
    const cache = new LiveCache({ refreshEveryMs: 0 });
    const { get, fellThrough } = await serve(bullpen, cache);
    const viewer = await signedIn(bullpen);
    await cache.get(liveKeys.overview(), 60_000, async () => ({ secret: 'queue data' }));
    await cache.get(liveKeys.job('notify', '1', 1), 60_000, async () => null);

    const refused = async (path: string, headers: Record<string, string>) => {
      const r = await get(path, headers);
      expect(r.status, `${path} ${JSON.stringify(headers).slice(0, 60)}`).toBe(299);
      expect(r.body.toString()).not.toContain('queue data');
    };
    await refused('/api/live/overview', {});
    await refused('/api/live/overview', { cookie: `${SESSION_COOKIE}=` });
    await refused('/api/live/overview', { cookie: `${SESSION_COOKIE}=Fe26.2*1*forged*iv*data*9999999999999*salt*hmac~2` });
    // Sealed with another secret.
    const other = await sealData(
      { sid: viewer.sid, username: viewer.username, role: 'viewer', sessionEpoch: 0, signedInAt: 1 },
      {
        password: 'another-secret-of-more-than-32-characters!!',
      },
    );
    await refused('/api/live/overview', { cookie: `${SESSION_COOKIE}=${other}` });
    // Not a polled route, or one whose handler turns the value into an error (a job page's 404).
    await refused('/api/live/queues/notify/jobs/1', { cookie: viewer.cookie });
    await refused('/api/live/overview/', { cookie: viewer.cookie });
    await refused('/api/live/queues/%E0%A4%A', { cookie: viewer.cookie });
    await refused('/api/live/queues/..%2F..%2Foverview', { cookie: viewer.cookie });

    // The same cookie answers at once…
    expect((await get('/api/live/overview', { cookie: viewer.cookie })).status).toBe(200);
    // …and not once the session is closed (sign-out), on the very next request, though its unsealing is remembered.
    await viewer.auth.sessions.close(viewer.sid);
    await refused('/api/live/overview', { cookie: viewer.cookie });

    // A password change moves the user to another epoch: the old cookie is refused.
    const second = await signedIn(bullpen);
    expect((await get('/api/live/overview', { cookie: second.cookie })).status).toBe(200);
    await second.auth.users.setPassword(second.username, 'another correct horse battery');
    cache.invalidate(`user:${second.username}`);
    await refused('/api/live/overview', { cookie: second.cookie });
    expect(fellThrough).toHaveLength(10);
  });

  it('answers nothing but GET, and nothing outside /api/live', async () => {
    const bullpen = await server.readyBullpen();
    const cache = new LiveCache({ refreshEveryMs: 0 });
    const { fellThrough } = await serve(bullpen, cache);
    const fastPath = createLiveFastPath({ cache, userOf: async () => ({ username: 'x' }) as never });
    await cache.get(liveKeys.overview(), 60_000, async () => ({}));
    const res = { writeHead: () => res, end: () => res } as unknown as http.ServerResponse;
    const ask = (method: string, url: string) => fastPath({ method, url, headers: {} } as http.IncomingMessage, res);
    expect(await ask('POST', '/api/live/overview')).toBe(false);
    expect(await ask('HEAD', '/api/live/overview')).toBe(false);
    expect(await ask('GET', '/overview')).toBe(false);
    expect(await ask('GET', '/api/live/overview')).toBe(true);
    expect(fellThrough).toEqual([]);
  });
});
