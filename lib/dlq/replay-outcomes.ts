import type { QueueRegistry } from '../jobs/queues';

/** How long a replay waits for its job's first outcome: within the few seconds an action may take. */
export const REPLAY_OUTCOME_WAIT_MS = 3_000;
/**
 * Looks at the replayed jobs at most this many times within the wait, whatever their
 * number: the Redis cost of a wait is at most 2 O(1) reads per replay per look.
 */
const MAX_LOOKS = 6;
/** Jobs read in one pipeline. */
const PIPELINE_JOBS = 500;
/** Failures kept with their message, for a report. */
const FAILURES_KEPT = 20;

/** One replay: its dead letter, and the job it enqueued. */
export interface ReplayedJob {
  id: string;
  queue: string;
  jobId: string;
}

/**
 * What the replays' jobs did within the wait. `failed`: failed for good at once (a
 * disabled webhook, an idempotency conflict: a permanent error on the first attempt),
 * so their dead letters are pending again; `retrying`: a first attempt failed and the
 * job waits for its next; `running`: still waiting or running when the wait ended:
 * enqueued, nothing more is known.
 */
export interface ReplayOutcomes {
  completed: number;
  failed: number;
  retrying: number;
  running: number;
  /** The first failed ones, with BullMQ's failed reason. */
  failures: Array<{ id: string; jobId: string; message: string }>;
}

type Look = 'completed' | 'failed' | 'retrying' | 'running';

/**
 * Waits up to `waitMs` for the first outcome of many replays at once: every replay is
 * enqueued first, then all are looked at together, at most MAX_LOOKS times, each look
 * one pipeline per queue of two O(1) reads per job still running (its score in the
 * failed set, four fields of its hash), so a replay refused at once is never counted
 * as a success and the wait costs the same for 1 replay or 10,000. Pipelines are per
 * queue: a queue's keys share one hash tag, so each pipeline stays on one cluster node.
 */
export async function awaitReplayOutcomes(
  queues: QueueRegistry,
  replays: readonly ReplayedJob[],
  { waitMs = REPLAY_OUTCOME_WAIT_MS, now = Date.now }: { waitMs?: number; now?: () => number } = {},
): Promise<ReplayOutcomes> {
  const out: ReplayOutcomes = { completed: 0, failed: 0, retrying: 0, running: 0, failures: [] };
  const deadline = now() + waitMs;
  const step = Math.max(50, Math.floor(waitMs / MAX_LOOKS));
  let open = replays.filter((r) => queues.jobs.has(r.queue));
  // A replay of a queue this build does not know cannot be looked at: it is still running as far as we know.
  out.running += replays.length - open.length;
  for (let look = 1; open.length > 0; look++) {
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(step, deadline - now()))));
    const last = look >= MAX_LOOKS || now() >= deadline;
    const seen = await lookAt(queues, open);
    const still: ReplayedJob[] = [];
    open.forEach((r, i) => {
      const s = seen[i];
      if (s.look === 'running') {
        if (last) out.running++;
        else still.push(r);
        return;
      }
      out[s.look]++;
      if (s.look === 'failed' && out.failures.length < FAILURES_KEPT) out.failures.push({ ...r, message: s.reason ?? 'failed' });
    });
    open = still;
    if (last) break;
  }
  return out;
}

async function lookAt(queues: QueueRegistry, replays: ReplayedJob[]): Promise<Array<{ look: Look; reason?: string }>> {
  const seen: Array<{ look: Look; reason?: string }> = new Array(replays.length);
  const byQueue = new Map<string, number[]>();
  replays.forEach((r, i) => {
    const list = byQueue.get(r.queue);
    if (list) list.push(i);
    else byQueue.set(r.queue, [i]);
  });
  for (const [name, indexes] of byQueue) {
    const queue = queues.get(name);
    for (let start = 0; start < indexes.length; start += PIPELINE_JOBS) {
      const chunk = indexes.slice(start, start + PIPELINE_JOBS);
      const pipeline = queues.connection.pipeline();
      for (const i of chunk) {
        pipeline.zscore(queue.keys.failed, replays[i].jobId);
        pipeline.hmget(queue.toKey(replays[i].jobId), 'finishedOn', 'atm', 'failedReason', 'timestamp');
      }
      const replies = (await pipeline.exec()) ?? [];
      chunk.forEach((i, k) => {
        const [errScore, score] = replies[2 * k] ?? [];
        const [errHash, fields] = replies[2 * k + 1] ?? [];
        if (errScore || errHash) throw errScore ?? errHash;
        // `timestamp` is set when a job is added: without it the job is gone.
        const [finishedOn, attemptsMade, reason, addedAt] = (fields ?? []) as Array<string | null | undefined>;
        const gone = addedAt === null || addedAt === undefined;
        if (score !== null && score !== undefined) seen[i] = { look: 'failed', reason: reason ?? undefined };
        // Finished and not failed, or gone: retention removes finished jobs only.
        else if (finishedOn || gone) seen[i] = { look: 'completed' };
        else if (Number(attemptsMade ?? 0) > 0) seen[i] = { look: 'retrying', reason: reason ?? undefined };
        else seen[i] = { look: 'running' };
      });
    }
  }
  return seen;
}

/** The outcomes in one sentence, for a bulk result or the CLI. */
export function describeReplayOutcomes(o: ReplayOutcomes, waitMs = REPLAY_OUTCOME_WAIT_MS): string {
  const parts: string[] = [];
  if (o.failed) parts.push(`${o.failed.toLocaleString('en')} failed at once (pending again: fix what the error names, then replay)`);
  if (o.retrying) parts.push(`${o.retrying.toLocaleString('en')} failed a first attempt and retry by themselves`);
  if (o.completed) parts.push(`${o.completed.toLocaleString('en')} completed`);
  if (o.running) parts.push(`${o.running.toLocaleString('en')} still waiting or running after ${waitMs / 1000} s`);
  return parts.join('; ');
}

/** The job an entry's newest replay enqueued. */
export function replayedJobOf(entry: { id: string; queue: string; replays: ReadonlyArray<{ newJobId: string }> }): ReplayedJob {
  return { id: entry.id, queue: entry.queue, jobId: entry.replays[entry.replays.length - 1].newJobId };
}
