/**
 * (b) The real pages over HTTP from `next start`, as a signed-in browser GETs them:
 * the whole streamed document, every Suspense boundary resolved. Pages read through a
 * 1.5 s live cache (many tabs, one Redis read), so each page is fetched twice per
 * round — once with the cache expired (what the server does for the first tab) and
 * once right after (what the other tabs get) — and rounds are spaced past the TTL.
 */
import { LIVE_TTL_MS } from '@/dashboard/live/live-cache';
import type { RunningDashboard } from './dashboard-next';
import type { Timing } from './dashboard-reads';

export interface PageProbe {
  key: string;
  /** The path of round `round` (−1 is the warm-up); vary it to defeat the caches on purpose. */
  path(round: number): string;
  /**
   * Strings the page must contain in that round (ids it shows), or the run fails.
   * Asked after the round's GETs, so reading the expected ids cannot warm a cache for them.
   */
  markers(round: number): Promise<string[]> | string[];
}

export interface HttpTiming {
  /** Full document, live cache expired: the server's own time for the page. */
  fresh: Timing;
  /** Time to the response headers (the shell, before the streamed widgets) of the fresh GETs. */
  firstByte: Timing;
  /** The same URL again at once: served from the live cache. */
  cached: Timing;
  /** Size of the last document, bytes. */
  bytes: number;
}

/** A round takes at least this long, so every fresh GET finds the live cache expired. */
const ROUND_MS = LIVE_TTL_MS + 300;
/** Rounds before measuring: the first requests load each route's code into the server. */
const WARMUP_ROUNDS = 2;

interface Fetched {
  ms: number;
  firstByteMs: number;
  body: string;
}

async function get(d: RunningDashboard, path: string): Promise<Fetched> {
  const t0 = performance.now();
  const res = await fetch(`${d.url}${path}`, { headers: { cookie: d.cookie, accept: 'text/html' }, redirect: 'manual' });
  const firstByteMs = performance.now() - t0;
  const body = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status} ${res.headers.get('location') ?? ''}`.trim());
  return { ms, firstByteMs, body };
}

function check(path: string, f: Fetched, markers: string[]): void {
  const missing = markers.filter((m) => !f.body.includes(m));
  if (missing.length) throw new Error(`GET ${path} does not show ${missing.join(', ')} (${f.body.length} bytes)`);
}

export async function runHttp(d: RunningDashboard, probes: PageProbe[], reps: number): Promise<Record<string, HttpTiming>> {
  const out: Record<string, HttpTiming> = {};
  for (const p of probes) out[p.key] = { fresh: { samples: [] }, firstByte: { samples: [] }, cached: { samples: [] }, bytes: 0 };
  for (let round = -WARMUP_ROUNDS; round < reps; round++) {
    const started = performance.now();
    const r = Math.max(round, -1);
    for (const p of probes) {
      const path = p.path(r);
      const fresh = await get(d, path);
      const cached = await get(d, path);
      const markers = await p.markers(r);
      check(path, fresh, markers);
      check(path, cached, markers);
      if (round < 0) continue;
      const t = out[p.key];
      t.fresh.samples.push(fresh.ms);
      t.firstByte.samples.push(fresh.firstByteMs);
      t.cached.samples.push(cached.ms);
      t.bytes = Buffer.byteLength(fresh.body);
    }
    const left = ROUND_MS - (performance.now() - started);
    if (left > 0) await new Promise((res) => setTimeout(res, left));
  }
  return out;
}
