import type { DeadLetterStatus } from './dead-letter-id';
import type { ReplayRecord } from './entry';

/** What a failed job's record says about retrying that job from its queue: the fields the claim script reads. */
export interface ChainState {
  id: string;
  status: DeadLetterStatus;
  /** The job whose failure the record holds now: the chain's newest failed job. */
  latestFailedJobId: string;
  /** Oldest first; only needed to name the job a failure was replayed as. */
  replays?: readonly Pick<ReplayRecord, 'at' | 'newJobId'>[];
}

/** Why a failed job is not retried from its queue. */
export type RetryRefusal = 'replayed' | 'replaying' | 'discarded' | 'superseded';

export type RetryVerdict =
  | { retry: true; deadLetterId?: string }
  | { retry: false; why: RetryRefusal; deadLetterId: string; replayedAs?: string };

/**
 * Whether "Retry" on failed job `jobId` runs it again, decided as the claim script
 * (lib/dlq/lua/dlq-claim-retry.lua) decides it, so the failed tab's marker, the retry-all
 * preview and the retry itself agree (docs/decisions/0008-one-record-per-failure.md):
 * only the chain's newest failed job of a pending record is retried. An older one (the
 * original after a replay of it failed) would run again with the stale data.
 * `failedAt` (the job's finishedOn) picks the replay it was replayed as.
 */
export function retryVerdict(chain: ChainState | undefined, jobId: string, failedAt?: number): RetryVerdict {
  if (!chain) return { retry: true };
  const refuse = (why: RetryRefusal): RetryVerdict => {
    const as = replayedAs(chain, jobId, failedAt);
    return { retry: false, why, deadLetterId: chain.id, ...(as ? { replayedAs: as } : {}) };
  };
  if (chain.status === 'discarded') return refuse('discarded');
  if (chain.status === 'replaying') return refuse('replaying');
  if (chain.status === 'replayed') return refuse('replayed');
  if (chain.latestFailedJobId !== jobId) return refuse('superseded');
  return { retry: true, deadLetterId: chain.id };
}

/** The job that ran this failure again: the first replay after it that is another job, else the newest other one. */
function replayedAs(chain: ChainState, jobId: string, failedAt?: number): string | undefined {
  const others = (chain.replays ?? []).filter((r) => r.newJobId !== jobId);
  const after = failedAt === undefined ? undefined : others.find((r) => r.at >= failedAt);
  return (after ?? others[others.length - 1])?.newJobId;
}
