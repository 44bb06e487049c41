import { Bullpen } from './bullpen';

const holder = globalThis as typeof globalThis & { __bullpen?: Bullpen };

/**
 * The one Bullpen of a long-lived server process (the dashboard). Cached on
 * `globalThis` because Next's dev server re-evaluates modules on every change and
 * a module-level instance would leak a Redis connection per reload.
 */
export function getBullpen(): Bullpen {
  holder.__bullpen ??= new Bullpen();
  return holder.__bullpen;
}

/** Closes the cached instance (tests, shutdown); the next getBullpen() makes a new one. */
export async function closeBullpen(): Promise<void> {
  const b = holder.__bullpen;
  holder.__bullpen = undefined;
  await b?.close();
}
