import 'server-only';
import { selectedApp } from '@/applications';
import { createAppBullpen } from '@/lib/app/create-app-bullpen';
import type { Bullpen } from '@/lib/bullpen';
import { getConfig } from '@/lib/config';
import { type LiveCache, sharedLiveCache } from '@/dashboard/live/live-cache';
import { RedisWatch, sharedRedisWatch } from '@/lib/health/redis-watch';

/**
 * Everything the dashboard process holds for its lifetime: the Bullpen of the application
 * BULLPEN_APP names (applications.ts; the shipped application by default), the live-read cache, and the services made from
 * them on first use (sign-in, mutations, metrics).
 */
interface DashboardProcess {
  bullpen: Bullpen;
  liveCache: LiveCache;
  scoped: Map<string, unknown>;
}

/**
 * The dashboard's one HMR-safe singleton. Next's dev server re-evaluates modules on
 * every change, so a module-level instance would leak a Redis connection per reload;
 * `globalThis` survives the reload. Every other per-process value hangs off this one
 * (`processScoped`), so there is one place to look and one thing to close.
 */
const holder = globalThis as typeof globalThis & { __bullpenDashboard?: DashboardProcess };

function dashboardProcess(): DashboardProcess {
  holder.__bullpenDashboard ??= {
    bullpen: dashboardBullpen(),
    liveCache: sharedLiveCache(),
    scoped: new Map(),
  };
  return holder.__bullpenDashboard;
}

/** The selected application's table, schedules and metric prefix, on a fail-fast connection watched by the Redis watch. */
function dashboardBullpen(): Bullpen {
  const config = getConfig();
  return createAppBullpen(selectedApp(config), { config, redisWatch: redisWatch() });
}

/** The one Bullpen of the dashboard process, built for the selected application's job table. */
export function getBullpen(): Bullpen {
  return dashboardProcess().bullpen;
}

/** The process-wide cache the dashboard's route handlers, pages and server (scripts/web-server.ts) share. */
export function liveCache(): LiveCache {
  return dashboardProcess().liveCache;
}

/**
 * Whether this process reaches Redis, and since when (lib/health/redis-watch.ts): a
 * short-timeout PING on the Bullpen's connection, shared with the dashboard's server,
 * which answers the tabs' /api/live/redis polls from it.
 */
export function redisWatch(): RedisWatch {
  // The PING waits for a connection that is (re)connecting, a little less than the watch's own limit.
  return sharedRedisWatch(() => new RedisWatch(async () => (await getBullpen().ready(1_100)).redis.ping()))!;
}

/** A per-process value made from the Bullpen on first use and kept with it. */
export function processScoped<T>(name: string, make: (bullpen: Bullpen) => T): T {
  const p = dashboardProcess();
  if (!p.scoped.has(name)) p.scoped.set(name, make(p.bullpen));
  return p.scoped.get(name) as T;
}

/** Forgets a per-process value (one whose making failed, so the next call tries again). */
export function forgetProcessScoped(name: string): void {
  holder.__bullpenDashboard?.scoped.delete(name);
}

/**
 * The Bullpen once its Redis connection is ready. The producer connection has no
 * offline queue: it holds commands only until its first `ready` (lib/redis/connection.ts),
 * so during a reconnect a command fails at once; server code awaits this to wait for the
 * reconnection instead. Rejects after `timeoutMs` when Redis stays unreachable (the page
 * shows its error boundary).
 */
export function readyBullpen(timeoutMs = 5_000): Promise<Bullpen> {
  return getBullpen().ready(timeoutMs);
}

/** Closes the process's Bullpen and drops everything made from it; the next call builds anew. */
export async function closeBullpen(): Promise<void> {
  const p = holder.__bullpenDashboard;
  holder.__bullpenDashboard = undefined;
  await p?.bullpen.close();
}
