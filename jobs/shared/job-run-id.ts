import { digest32 } from './hash';

/**
 * The identity under which a handler keeps its progress (cursor, plan, result). A retry
 * keeps the job id, so the job id is enough for retries; a DLQ replay gets a new job
 * id but keeps the envelope's idempotency key, so a job dispatched with a key keeps its
 * progress under the key and a replay continues (or returns) the original run instead
 * of applying its change a second time. A replay with an edited payload is a new run: the
 * runtime gave it a key of its own (docs/dead-letters.md, "Replay keys"), and without a
 * key its run is the edited replay's job id, so it never continues the plan of the payload
 * it replaced.
 */
export function jobRunId(ctx: {
  type: string;
  jobId: string;
  idempotencyKey?: string;
  originJobId?: string;
  editedReplay?: string;
}): string {
  // A replay without a key carries the first job's id, under which that run's progress is.
  if (!ctx.idempotencyKey) return ctx.editedReplay ?? ctx.originJobId ?? ctx.jobId;
  return `key-${digest32(`${ctx.type}\n${ctx.idempotencyKey}`)}`;
}
