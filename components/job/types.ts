import type { ActionResult } from '@/lib/dashboard/action-result';

type Action<T, I = { queue: string; id: string }> = (input: I) => Promise<ActionResult<T>>;

/** The job page's server actions, handed down as props. */
export interface JobActions {
  retry: Action<{ jobId: string; from: 'failed' | 'completed' }>;
  promote: Action<{ jobId: string }>;
  /** With `payload` (JSON text), the copy carries that edit. */
  duplicate: Action<{ jobId: string; sourceId: string; edited: boolean }, { queue: string; id: string; payload?: string }>;
  remove: Action<{ jobId: string; state: string }>;
}
