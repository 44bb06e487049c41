import type { RedisClient } from './connection';

/** What a Redis server says when CLIENT LIST is not allowed (ACL, managed services). */
const CLIENT_LIST_REFUSED = /NOPERM|unknown command|not allowed|disabled|forbidden|no permissions/i;

/** The connected clients' names, one array per node (a cluster's every node). */
export type ClientNames = string[][];

/**
 * One CLIENT LIST per node, names only: what BullMQ's `queue.getWorkers()` reads, once
 * for every queue instead of once per queue (a page of 18 queues asked 18 times, and the
 * health check 18 more; the reply holds every client of the server). null when the
 * server refuses the command: worker counts are then unknowable, not zero.
 */
export async function readClientNames(redis: RedisClient): Promise<ClientNames | null> {
  const nodes = 'nodes' in redis && typeof redis.nodes === 'function' ? redis.nodes() : [redis];
  try {
    const lists = await Promise.all(nodes.map((n) => n.client('LIST') as Promise<string>));
    return lists.map(parseClientNames);
  } catch (err) {
    if (CLIENT_LIST_REFUSED.test((err as Error)?.message ?? '')) return null;
    throw err;
  }
}

/** The `name=` of each line of a CLIENT LIST reply (empty names left out). */
export function parseClientNames(list: string): string[] {
  const names: string[] = [];
  for (const line of list.split(/\r?\n/)) {
    const m = / name=(\S*)/.exec(` ${line}`);
    if (m?.[1]) names.push(m[1]);
  }
  return names;
}

/**
 * The worker connections of `queue` among the names, as BullMQ's `getWorkers` matches
 * them: BullMQ names a worker's connections `<prefix>:<base64 queue name>` or
 * `...:w:<worker name>`; on a cluster, the node with the most of them (the queue's own).
 * Returns the worker names (the pool's `bullpen:<host>:<pid>`, or the connection name).
 */
export function workersOf(names: ClientNames, queue: { name: string; opts: { prefix?: string } }): string[] {
  const base = `${queue.opts.prefix ?? 'bull'}:${Buffer.from(queue.name).toString('base64')}`;
  const named = `${base}:w:`;
  let best: string[] = [];
  for (const node of names) {
    const found = node.filter((n) => n === base || n.startsWith(named)).map((n) => (n === base ? n : n.slice(named.length)));
    if (found.length > best.length) best = found;
  }
  return best;
}
