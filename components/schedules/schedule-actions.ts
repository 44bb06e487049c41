import type { ActionResult } from '@/dashboard/client/action-result';
import type { ScheduleFormInput } from '@/dashboard/client/read-models';
import type { ScheduleSummary } from '@/dashboard/client/runtime-shared';

/** The schedules segment's server actions, passed down as props (components never import app/). */
export interface ScheduleActions {
  edit(input: ScheduleFormInput): Promise<ActionResult<ScheduleSummary>>;
  pause(input: { name: string }): Promise<ActionResult<ScheduleSummary>>;
  resume(input: { name: string }): Promise<ActionResult<ScheduleSummary>>;
  reset(input: { name: string }): Promise<ActionResult<ScheduleSummary>>;
  trigger(input: { name: string }): Promise<ActionResult<{ jobId: string; jobType: string }>>;
}
