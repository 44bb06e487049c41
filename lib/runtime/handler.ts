import type { Logger } from '../logging/logger';
import type { Tenant } from '../jobs/tenant';

/**
 * What a handler sees of its job. No BullMQ object crosses this line: handlers get
 * plain data, a signal and two callbacks, so they can be tested without a queue.
 */
export interface JobContext<P = unknown> {
  jobId: string;
  type: string;
  /** The payload, validated and with the schema's defaults filled in. */
  data: P;
  tenant?: Tenant;
  idempotencyKey?: string;
  /**
   * On a DLQ replay, the id of the job that first failed; handlers that keep progress
   * per job key it by `originJobId ?? jobId` so a replay continues the original run.
   */
  originJobId?: string;
  /** On a DLQ replay, the dead letter it came from. */
  replayOf?: string;
  /**
   * Set when an operator's edit in a DLQ replay produced this payload: that replay's job
   * id. The payload is a new request: `idempotencyKey` is already the edit's own, and a
   * handler that derives keys or ids of its own derives them anew with `editedReplayId`.
   */
  editedReplay?: string;
  requestId: string;
  /** 1 for the first attempt. */
  attempt: number;
  maxAttempts: number;
  /** Aborted when the attempt times out or the worker cancels it; pass it to every I/O call. */
  signal: AbortSignal;
  /** Reports progress (0..100) and an optional named phase, e.g. `{ percent: 40, phase: 'generating' }`. */
  progress(percent: number, phase?: string, detail?: Record<string, unknown>): Promise<void>;
  /** Appends a line to the job's log (shown on the dashboard's job page). */
  log(line: string): Promise<void>;
  logger: Logger;
}

export type JobHandler<P = unknown, R = unknown> = (ctx: JobContext<P>) => Promise<R>;

/** A handler for each type this process runs, by type name. */
// biome-ignore lint/suspicious/noExplicitAny: each entry takes its own type's payload; the map holds them all.
export type HandlerMap = Record<string, JobHandler<any, unknown>>;

/** The shape of progress BullMQ stores for a job, as the dashboard reads it. */
export interface JobProgressValue {
  percent: number;
  phase?: string;
  detail?: Record<string, unknown>;
}
