import { envelopeSchema } from '../jobs/envelope';
import type { RedisClient } from '../redis/connection';
import type { DeadLetterStatus } from './dead-letter-id';
import type { DlqKeys } from './dlq-keys';
import { chainRecordId, type ReplayRecord } from './entry';
import type { ChainState } from './retry-verdict';

/**
 * The record facts of failed jobs that decide a retry from their queue (status, the
 * chain's latest failed job, the replays), read in one pipeline without payloads; jobs
 * without a record are left out. The latest failed job is `failedJobId`, else the
 * original's, as lib/dlq/lua/dlq-claim-retry.lua reads it.
 */
export async function readChainStates(
  redis: RedisClient,
  keys: DlqKeys,
  queue: string,
  jobs: readonly { id: string; data?: unknown }[],
): Promise<Map<string, ChainState>> {
  const out = new Map<string, ChainState>();
  if (jobs.length === 0) return out;
  const ids = jobs.map((j) => {
    const envelope = envelopeSchema.safeParse(j.data);
    return chainRecordId(queue, j.id, envelope.success ? envelope.data : undefined);
  });
  const pipeline = redis.pipeline();
  for (const id of ids) pipeline.hmget(keys.entry(id), 'status', 'failedJobId', 'originalJobId', 'replays');
  const replies = (await pipeline.exec()) ?? [];
  replies.forEach(([err, values], i) => {
    if (err) throw err;
    const [status, failedJobId, originalJobId, replays] = values as Array<string | null>;
    if (status === null) return;
    out.set(jobs[i].id, {
      id: ids[i],
      status: status as DeadLetterStatus,
      latestFailedJobId: failedJobId ?? originalJobId ?? '',
      replays: replays ? (JSON.parse(replays) as ReplayRecord[]) : [],
    });
  });
  return out;
}
