import type { LookupFunction } from 'node:net';

/**
 * What `fetch`'s `dispatcher` option takes, reduced to what Bullpen calls on it. The
 * `undici` package is not a dependency; Node's global fetch is built on a bundled copy.
 */
export interface FetchDispatcher {
  close(): Promise<void>;
  destroy(): Promise<void>;
}

type AgentConstructor = new (opts: { connect: { lookup: LookupFunction } }) => FetchDispatcher;

/**
 * undici keeps the process-wide dispatcher under this symbol, a contract kept stable
 * across undici versions so that the npm package and Node's bundled copy share it.
 */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

/**
 * The `Agent` class of the undici bundled in Node (20+), reached through the global
 * dispatcher, or undefined when it cannot be found (another dispatcher was installed
 * globally, or a runtime without undici). Node loads its undici on the first call of
 * `fetch`, so a no-network `data:` fetch is made first.
 */
function bundledAgent(): AgentConstructor | undefined {
  const g = globalThis as unknown as Record<symbol, unknown>;
  if (!g[GLOBAL_DISPATCHER] && typeof fetch === 'function') {
    void fetch('data:,').catch(() => undefined);
  }
  const ctor = (g[GLOBAL_DISPATCHER] as { constructor?: unknown } | undefined)?.constructor;
  return typeof ctor === 'function' && ctor.name === 'Agent' ? (ctor as AgentConstructor) : undefined;
}

/**
 * A fetch dispatcher whose every new connection resolves its host through `lookup`.
 * Given a lookup that checks the addresses it returns, the address a request connects
 * to is exactly the one checked, so a DNS answer that changes between the check and the
 * connection (DNS rebinding) cannot slip a private address in. Undefined when undici's
 * Agent is unreachable: the caller then falls back to checking before the request.
 */
export function createPinnedAgent(lookup: LookupFunction): FetchDispatcher | undefined {
  const Agent = bundledAgent();
  return Agent ? new Agent({ connect: { lookup } }) : undefined;
}
