import type { ActionResult } from '@/lib/dashboard/action-result';

type Action<T> = (input: { queue: string; id: string }) => Promise<ActionResult<T>>;

/** The job page's server actions, handed down as props. */
export interface JobActions {
  retry: Action<{ jobId: string; from: 'failed' | 'completed' }>;
  promote: Action<{ jobId: string }>;
  duplicate: Action<{ jobId: string; sourceId: string }>;
  remove: Action<{ jobId: string; state: string }>;
}
