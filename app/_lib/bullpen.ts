import { sourceApp } from '@/jobs';
import { type Bullpen, createBullpen } from '@/lib/bullpen';
import { waitReady } from '@/lib/redis/connection';

const holder = globalThis as typeof globalThis & { __bullpen?: Bullpen };

/**
 * The one Bullpen of a long-lived server process (the dashboard). Cached on
 * `globalThis` because Next's dev server re-evaluates modules on every change and
 * a module-level instance would leak a Redis connection per reload.
 */
export function getBullpen(): Bullpen {
  holder.__bullpen ??= createBullpen(sourceApp);
  return holder.__bullpen;
}

/**
 * The Bullpen once its Redis connection is ready. The producer connection has no
 * offline queue (it fails fast while Redis is down), so the first command right after
 * start, or during a reconnect, would fail; server code awaits this instead. Rejects
 * after `timeoutMs` when Redis stays unreachable (the page shows its error boundary).
 */
export async function readyBullpen(timeoutMs = 5_000): Promise<Bullpen> {
  const b = getBullpen();
  if (b.redis.status !== 'ready') await waitReady(b.redis, timeoutMs);
  return b;
}

/** Closes the cached instance (tests, shutdown); the next getBullpen() makes a new one. */
export async function closeBullpen(): Promise<void> {
  const b = holder.__bullpen;
  holder.__bullpen = undefined;
  await b?.close();
}
