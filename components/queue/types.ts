import type { ActionResult } from '@/dashboard/client/action-result';
import type { AddedJob, AddJobRequest } from '@/dashboard/client/add-job-form';
import type { AddedRawJob, AddRawJobRequest } from '@/dashboard/client/add-raw-job';
import type { BulkOperation } from '@/dashboard/client/read-models';
import type { CleanableState } from '@/dashboard/client/clean-states';
import type { RetryCounts } from '@/dashboard/client/read-models';
import type { LimitChange, RateLimit } from '@/dashboard/client/throughput-limits';

/** Number fields may go as typed: the server parses them and says why a value is refused. */
type Action<I, T> = (input: I) => Promise<ActionResult<T>>;

/** The queue page's server actions, handed down as props (components never import app/). */
export interface QueueActions {
  pause: Action<{ queue: string }, null>;
  resume: Action<{ queue: string }, null>;
  retrySelected: Action<{ queue: string; ids: string[] }, RetryCounts & { message?: string }>;
  /** Acts on the jobs a preview counted: failed at or before `before`, the oldest `limit`. */
  retryAll: Action<{ queue: string; before: number; limit: number }, BulkOperation>;
  promoteAll: Action<{ queue: string }, BulkOperation>;
  clean: Action<{ queue: string; state: CleanableState; olderThanMinutes: number }, BulkOperation>;
  setConcurrency: Action<{ queue: string; concurrency: number | string }, LimitChange<number>>;
  removeConcurrency: Action<{ queue: string }, LimitChange<number>>;
  setRateLimit: Action<{ queue: string; max: number | string; durationMs: number | string }, LimitChange<RateLimit>>;
  removeRateLimit: Action<{ queue: string }, LimitChange<RateLimit>>;
  retryJob: Action<{ queue: string; id: string }, { jobId: string; from: 'failed' | 'completed'; deadLetterId?: string }>;
}

/** The queue page's "Add a job" action (operators and up). */
export type AddJobAction = Action<AddJobRequest, AddedJob>;
/** A foreign queue's "Add a job": name and raw JSON (operators and up). */
export type AddRawJobAction = Action<AddRawJobRequest, AddedRawJob>;
/** The queue page's throughput-limit actions. */
export type ThroughputActions = Pick<QueueActions, 'setConcurrency' | 'removeConcurrency' | 'setRateLimit' | 'removeRateLimit'>;
