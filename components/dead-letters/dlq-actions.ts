import type { ActionResult } from '@/dashboard/client/action-result';
import type { BulkOperation } from '@/dashboard/client/read-models';
import type { SelectedOutcome } from '@/dashboard/client/read-models';
import type { ReplayResult } from '@/dashboard/client/read-models';

/**
 * The dead-letters segment's server actions, passed down as props (components never
 * import app/). A viewer's page passes none; an operator's lacks the admin ones.
 */
export interface DeadLetterActions {
  replay(input: {
    id: string;
    expectedReplays: number;
    payload?: string;
    /** A destructive type's typed org id. */
    confirm?: string;
  }): Promise<ActionResult<ReplayResult>>;
  discard(input: { id: string }): Promise<ActionResult<{ id: string }>>;
  replaySelected(input: { entries: Array<{ id: string; replays: number }> }): Promise<ActionResult<SelectedOutcome>>;
  replayAll(input: { filter: string; limit: number }): Promise<ActionResult<BulkOperation>>;
  /** Admin only. */
  discardSelected?(input: { ids: string[] }): Promise<ActionResult<SelectedOutcome>>;
  /** Admin only. */
  purge?(input: { filter: string; confirm: string }): Promise<ActionResult<BulkOperation>>;
}
