import type { ActionResult } from '@/dashboard/client/action-result';
import type { PayloadChange } from '@/dashboard/client/read-models';

type Action<T, I = { queue: string; id: string }> = (input: I) => Promise<ActionResult<T>>;

/** The job page's server actions, handed down as props. */
export interface JobActions {
  /** `confirm`: a destructive type's typed org id (dashboard/jobs/job-start-rules.ts). */
  retry: Action<{ jobId: string; from: 'failed' | 'completed' }, { queue: string; id: string; confirm?: string }>;
  promote: Action<{ jobId: string }>;
  /** With `payload` (JSON text), the copy carries that edit. */
  duplicate: Action<
    { jobId: string; sourceId: string; edited: boolean },
    { queue: string; id: string; payload?: string; confirm?: string }
  >;
  remove: Action<{ jobId: string; state: string }>;
  /** Cancels a running job: `cancelled` once its worker stopped it, `unconfirmed` when none did within 3 s. */
  cancel: Action<{ jobId: string; outcome: 'cancelled' | 'unconfirmed'; reached: number }>;
  /** Mends a waiting, delayed or prioritized job's payload (JSON text), if it still has `original` (JSON text). */
  editData: Action<
    { jobId: string; state: 'waiting' | 'delayed' | 'prioritized'; changes: PayloadChange[] },
    { queue: string; id: string; payload: string; original: string }
  >;
}
