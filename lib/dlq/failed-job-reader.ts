import { Job, type Queue } from 'bullmq';
import { PAYLOAD_PREVIEW_BYTES } from '../jobs/payload-limit';
import type { RedisClient } from '../redis/connection';
import type { FailedJobRecord } from './dead-letter-input';
import { READ_FAILED_JOB } from './scripts';

/**
 * Reads one job of `queue`'s failed set for the reconciler without pulling a large job
 * into the process: its data comes back only when it is at most `maxPayloadBytes`
 * (BULLPEN_MAX_PAYLOAD_BYTES); a larger job comes back without it, as the runtime sees
 * one at pickup (its size and the first 2 KiB of its JSON), and its dead letter keeps
 * that preview (docs/dead-letters.md#payloads). Undefined when the job has left the
 * failed set since its id was read.
 */
export async function readFailedJob(
  redis: RedisClient,
  queue: Pick<Queue, 'keys' | 'toKey'>,
  id: string,
  maxPayloadBytes: number,
): Promise<FailedJobRecord | undefined> {
  const reply = (await READ_FAILED_JOB.run(redis, [queue.keys.failed, queue.toKey(id)], [id, maxPayloadBytes, PAYLOAD_PREVIEW_BYTES])) as
    | [number, string, number, string, string, string, string, string, string, string, string, string]
    | null;
  if (!reply) return undefined;
  const [bytes, text, cut, name, timestamp, opts, failedReason, stacktrace, atm, attemptsMade, finishedOn, processedOn] = reply;
  return {
    id,
    name,
    timestamp: Number(timestamp),
    opts: Job.optsFromJSON(opts || '{}'),
    data: cut ? null : parseOr(text || '{}', null),
    failedReason: failedReason || undefined,
    stacktrace: parseOr<unknown>(stacktrace || '[]', []) as string[],
    attemptsMade: Number(attemptsMade || atm || 0),
    finishedOn: finishedOn ? Number(finishedOn) : undefined,
    processedOn: processedOn ? Number(processedOn) : undefined,
    ...(cut ? { oversized: { bytes, limit: maxPayloadBytes, preview: text } } : {}),
  };
}

/** JSON BullMQ wrote, or `fallback` for a field another client spoiled: one bad job never stops a sweep. */
function parseOr<T>(json: string, fallback: T): T {
  try {
    return JSON.parse(json) as T;
  } catch {
    return fallback;
  }
}
