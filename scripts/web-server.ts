/**
 * The dashboard's HTTP server: Next.js's request handler behind a plain node:http
 * server, so the app can know its client. Next does not expose the socket's address to
 * server actions, and a client can send any X-Forwarded-For; here the client is resolved
 * from the socket and the headers of TRUSTED_PROXIES only (dashboard/http/client-address.ts)
 * and handed to Next.js in a header no browser can forge. It also answers a tab's poll
 * of a live route from the live cache when it can (dashboard/live/live-fast-path.ts),
 * before the framework's per-request work. `npm run web` runs this.
 *
 *   PORT=3000 HOST=127.0.0.1 node --import tsx scripts/web-server.ts
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { TLSSocket } from 'node:tls';
import next from 'next';
import { selectedApp } from '@/applications';
import { CookieSessions, USER_CACHE_MS, userCacheKey } from '@/dashboard/auth/session-check';
import { resolveSessionSecret } from '@/dashboard/auth/session-secret';
import { UserStore } from '@/dashboard/auth/user-store';
import { loadConfigOrExit } from '@/lib/config';
import { sharedLiveCache } from '@/dashboard/live/live-cache';
import { createLiveFastPath } from '@/dashboard/live/live-fast-path';
import { sharedRedisWatch } from '@/lib/health/redis-watch';
import { createRedis, redisTarget } from '@/lib/redis/connection';
import { Keyspace } from '@/lib/redis/keys';
import { TrustedProxies, resolveClient } from '@/dashboard/http/client-address';
import { CLIENT_HEADER, CLIENT_TOKEN_ENV, encodeClientHeader } from '@/dashboard/http/client-header';
import { relayForwardedActionStatus } from '@/dashboard/http/forwarded-action';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  // The dashboard builds its Bullpen on the first request: a BULLPEN_APP it cannot run stops the start instead.
  const application = selectedApp(config);
  const host = process.env.HOST ?? '127.0.0.1';
  const trusted = new TrustedProxies(config.TRUSTED_PROXIES);
  const token = randomBytes(24).toString('base64url');
  // Read by dashboard/auth/session.ts and proxy.ts in this same process.
  process.env[CLIENT_TOKEN_ENV] = token;

  const app = next({ dev: false, dir: process.cwd(), hostname: host, port: config.PORT });
  const handle = app.getRequestHandler();
  await app.prepare();

  // The fast path's own connection for the session checks (the dashboard's Bullpen lives in
  // Next's copy of lib/, dashboard/dashboard-process.ts); it shares its live cache through globalThis.
  const redis = createRedis(redisTarget(config), 'producer');
  const cache = sharedLiveCache();
  const users = new UserStore(redis, new Keyspace(config.BULLPEN_PREFIX));
  const sessions = new CookieSessions({
    secret: await resolveSessionSecret(config),
    lookups: {
      isOpen: (sid, username) => users.sessions.isOpen(sid, username),
      user: (username) => cache.get(userCacheKey(username), USER_CACHE_MS, () => users.get(username)),
    },
  });
  const fastPath = createLiveFastPath({
    cache,
    userOf: (cookie) => sessions.userOf(cookie),
    // The dashboard's watch (dashboard/dashboard-process.ts), once it made it: every tab's banner polls it.
    redisWatch: () => sharedRedisWatch(),
    sealed: (cookie) => sessions.sealed(cookie),
  });

  /** Hands the request to Next.js with its client, resolved here (a client's own header of that name is overwritten). */
  const toNext = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const forwarded = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v.join(',') : v;
    };
    const client = resolveClient(
      req.socket.remoteAddress,
      { forwardedFor: forwarded('x-forwarded-for'), forwardedProto: forwarded('x-forwarded-proto') },
      trusted,
      Boolean((req.socket as TLSSocket).encrypted),
    );
    req.headers[CLIENT_HEADER] = encodeClientHeader(client, token);
    // An action posted to another page's path answers with the status it got where Next forwarded it.
    relayForwardedActionStatus(req, res);
    return handle(req, res);
  };

  const server = http.createServer((req, res) => {
    void fastPath(req, res).then(
      async (answered) => {
        if (!answered) await toNext(req, res);
      },
      () => toNext(req, res),
    );
  });
  server.listen(config.PORT, host, () => {
    console.log(`dashboard of the ${application.name} application listening on http://${host}:${config.PORT}`);
  });

  let closing = false;
  const stop = () => {
    if (closing) process.exit(1);
    closing = true;
    // Open keep-alive connections (a polling tab) would hold close() forever.
    server.closeIdleConnections();
    cache.close();
    redis.disconnect();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 5_000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err) => {
  console.error('dashboard failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
