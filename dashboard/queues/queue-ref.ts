import 'server-only';
import type { Queue } from 'bullmq';
import type { Bullpen } from '@/lib/bullpen';
import { AppError } from '@/lib/errors/app-error';
import { RUNTIME_TAGS } from '@/lib/redis/keys';
import { readMetaKind } from './bullmq-meta';
import { discoveryPrefixes } from './queue-discovery';

/** A queue the dashboard works on: one of the job table's, or a foreign BullMQ queue found under a configured prefix. */
export interface ResolvedQueue {
  /** How URLs and actions name it: the type, or `<prefix>~<name>`. */
  ref: string;
  name: string;
  prefix: string;
  queue: Queue;
  /** The job type, for the table's own queues only: schemas, outcomes, dead letters apply. */
  type?: string;
  foreign: boolean;
}

/** A foreign queue's name as BullMQ allows it in a key, without the `:` that would make its keys ambiguous. */
const FOREIGN_NAME = /^[^:\s~]{1,128}$/;

/** Whether `ref` is shaped like a queue reference at all (actions check this before anything runs). */
export function isQueueRefShape(ref: string): boolean {
  if (ref.length > 200) return false;
  const sep = ref.indexOf('~');
  if (sep < 0) return /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(ref);
  return sep > 0 && FOREIGN_NAME.test(ref.slice(sep + 1));
}

/**
 * The queue a URL or an action names. An own queue is its type; a foreign one,
 * `<prefix>~<name>`, must be under one of the configured prefixes (or a hash-tagged
 * queue prefix under Bullpen's own, never one of the runtime's own tags such as
 * `{dlq}` or `{idem}`) and must exist: NOT_FOUND otherwise. Its `meta` key must be
 * BullMQ's meta hash (bullmq-meta.ts), not merely a key of that name: VALIDATION (400)
 * otherwise. So a reference can never point the dashboard, and the BullMQ Queue it
 * opens, at another application's keys or Bullpen's own structures.
 */
export async function resolveQueue(bullpen: Bullpen, ref: string): Promise<ResolvedQueue> {
  const notFound = () => new AppError('NOT_FOUND', `No queue named "${ref}"`, { queue: ref });
  if (!isQueueRefShape(ref)) throw notFound();
  const sep = ref.indexOf('~');
  if (sep < 0) {
    if (!bullpen.jobs.has(ref)) throw notFound();
    return { ref, name: ref, prefix: bullpen.keys.queuePrefix(ref), queue: bullpen.queues.get(ref), type: ref, foreign: false };
  }
  const prefix = ref.slice(0, sep);
  const name = ref.slice(sep + 1);
  if (!allowedPrefix(bullpen, prefix, name)) throw notFound();
  const kind = await readMetaKind(bullpen.redis, `${prefix}:${name}:meta`);
  if (kind === 'missing') throw notFound();
  if (kind === 'other') throw new AppError('VALIDATION', `"${ref}" is not a BullMQ queue: its meta key is not BullMQ's`, { queue: ref });
  return { ref, name, prefix, queue: bullpen.queues.foreign(prefix, name), foreign: true };
}

/**
 * A configured prefix, or Bullpen's per-queue `<root>:{<name>}` for a queue of Bullpen's
 * prefix the table lacks; never a key in one of the runtime's own tags: directly under
 * Bullpen's root a name holds no hash tag (`bullpen~{idem}` would be `bullpen:{idem}:…`).
 */
function allowedPrefix(bullpen: Bullpen, prefix: string, name: string): boolean {
  const prefixes = discoveryPrefixes(bullpen);
  const root = bullpen.keys.root;
  if (prefixes.includes(prefix)) return !(prefix === root && /[{}]/.test(name));
  const m = /^(.+):\{([^{}]+)\}$/.exec(prefix);
  return m !== null && prefixes.includes(m[1]) && m[2] === name && !(m[1] === root && (bullpen.jobs.has(name) || RUNTIME_TAGS.has(name)));
}
