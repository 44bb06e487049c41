import 'server-only';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { User } from '@/dashboard/auth/user-store';
import { TimeoutError } from '@/lib/errors/timeout-error';
import type { RedisWatch } from '@/lib/health/redis-watch';
import { withTimeLimit } from '@/lib/health/time-limit';
import type { LiveCache } from './live-cache';
import { liveKeyOfPath } from './live-keys';

export interface LiveFastPathOptions {
  cache: LiveCache;
  /** The signed-in user of a Cookie header, or null. */
  userOf(cookieHeader: string | undefined): Promise<User | null>;
  /** The process's Redis watch, once the app has made it (lib/health/redis-watch.ts `sharedRedisWatch`). */
  redisWatch?: () => RedisWatch | undefined;
  /** Whether a Cookie header carries a session cookie this dashboard sealed; asks no Redis. */
  sealed?: (cookieHeader: string | undefined) => Promise<boolean>;
  /**
   * A session check unanswered this long marks Redis unreachable, and the app's route
   * answers the poll (503 in words) instead of the tab waiting on a hung server.
   * @defaultValue 2000
   */
  userTimeoutMs?: number;
}

/** The poll behind every tab's outage banner: answered from the watch, in memory. */
export const REDIS_STATE_PATH = '/api/live/redis';

interface Body {
  json: Buffer;
  gzip: Buffer;
}

/** The answer's two encodings, made once per read (by the cache's background refresh for a polled key). */
function encode(value: unknown): Body {
  const json = Buffer.from(JSON.stringify(value));
  return { json, gzip: gzipSync(json) };
}

/**
 * Headers of every answer, as the app's route would send them: `Cache-Control: no-store`
 * (dashboard/live/live-route.ts) and next.config.js's security headers. A JSON answer runs no
 * script, so its policy forbids everything rather than carry a page's nonce.
 */
const HEADERS = {
  'content-type': 'application/json',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  vary: 'Accept-Encoding',
  // Says which path answered (the app's own route sends none): for operators and tests.
  'server-timing': 'live-cache;desc="hit"',
} as const;
/** The headers of a gzipped answer (the benchmark's bare server sends the same: scripts/bench/observer-floor.ts). */
export const GZIP_HEADERS = { ...HEADERS, 'content-encoding': 'gzip' } as const;
/** Distinct URLs whose key is remembered. */
const MAX_URLS = 1_000;

/**
 * The dashboard server's answer to a tab's poll, before Next.js sees the request. Most of
 * a cached poll's cost was the framework around it (routing, the proxy, web streams,
 * compressing the same JSON again): a GET of a polled live route (dashboard/live/live-keys.ts)
 * whose value is in the live cache, from a session that is open, is answered here with
 * the value's JSON, serialised and gzipped once per read (for a polled key, by the
 * background read, so a poll only writes bytes). Everything else — a cold key,
 * no or a closed session, an error, Redis down — goes on to the app's route handler,
 * which loads the value into the same cache and owns every error answer; so this path
 * only ever says 200 with what that handler would have said (docs/decisions/0009-polls-from-memory.md).
 *
 * Resolves to true when it answered.
 */
export function createLiveFastPath(opts: LiveFastPathOptions): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  // A tab polls the same few URLs: each URL's key is worked out once (bounded, oldest forgotten first).
  const keys = new Map<string, string | undefined>();
  const keyOf = (rawUrl: string) => {
    if (keys.has(rawUrl)) return keys.get(rawUrl);
    let key: string | undefined;
    try {
      const url = new URL(rawUrl, 'http://dashboard.invalid');
      key = liveKeyOfPath(url.pathname, url.searchParams);
    } catch {
      key = undefined;
    }
    keys.set(rawUrl, key);
    if (keys.size > MAX_URLS) keys.delete(keys.keys().next().value as string);
    return key;
  };
  const userTimeoutMs = opts.userTimeoutMs ?? 2_000;
  return async (req, res) => {
    if (req.method !== 'GET' || !req.url?.startsWith('/api/live/')) return false;
    const watch = opts.redisWatch?.();
    if (req.url === REDIS_STATE_PATH || req.url.startsWith(`${REDIS_STATE_PATH}?`)) {
      if (!watch || !opts.sealed || !(await opts.sealed(req.headers.cookie).catch(() => false))) return false;
      const json = Buffer.from(JSON.stringify(watch.state()));
      res.writeHead(200, { ...HEADERS, 'content-length': String(json.length) });
      res.end(json);
      return true;
    }
    // Redis is away: what the cache holds cannot be refreshed, so it is not served as live.
    if (watch && !watch.state().reachable) return false;
    const key = keyOf(req.url);
    if (!key || !opts.cache.isFresh(key)) return false;
    let user: User | null;
    // Redis found away meanwhile: hand the poll to the app at once (its answer is a 503 in words).
    const away = watch?.untilUnreachable();
    try {
      const check = withTimeLimit(opts.userOf(req.headers.cookie), userTimeoutMs, 'session check');
      user = await (away ? Promise.race([check, away.promise.then(() => null)]) : check);
    } catch (err) {
      if (err instanceof TimeoutError) watch?.markUnreachable('timeout');
      return false;
    } finally {
      away?.cancel();
    }
    if (watch && !watch.state().reachable) return false;
    // Every listed route is open to each role; no user, and the app answers 401.
    if (!user) return false;
    const body = opts.cache.derived<Body>(key, 'http', encode);
    if (!body) return false;
    const gzip = acceptsGzip(req.headers['accept-encoding']);
    const payload = gzip ? body.gzip : body.json;
    res.writeHead(200, { ...(gzip ? GZIP_HEADERS : HEADERS), 'content-length': String(payload.length) });
    res.end(payload);
    return true;
  };
}

/** Whether an Accept-Encoding header takes gzip (not refused with q=0). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  for (const part of value.split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}
