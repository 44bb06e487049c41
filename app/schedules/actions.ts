'use server';

import { z } from 'zod';
import { runAction, type ActionSpec } from '@/dashboard/action';
import type { ActionResult } from '@/dashboard/client/action-result';
import { saveScheduleForm } from '@/dashboard/schedules/schedules-edit';
import { scheduleFormSchema, type ScheduleFormInput } from '@/dashboard/schedules/schedules-form';
import { scheduleNameSchema } from '@/lib/schedules/schedule-definition';
import type { ScheduleSummary } from '@/lib/schedules/schedule-summary';

/*
 * Schedule mutations, each through runAction (authorise → safeParse → lib → revalidate
 * → typed result). The schedule service writes the audit entry itself, as the
 * signed-in user (schedule.edit with the pattern's from → to, ...), hence `audit: 'lib'`.
 */

const nameOnly = z.object({ name: scheduleNameSchema }).strict();
const revalidate = () => ['/schedules'];

const editSpec: ActionSpec<typeof scheduleFormSchema, ScheduleSummary> = {
  name: 'schedule.edit',
  minRole: 'operator',
  schema: scheduleFormSchema,
  run: (input, { user, bullpen }) => saveScheduleForm(bullpen, input, user.username),
  audit: 'lib',
  revalidate,
};

type ScheduleOp = 'pause' | 'resume' | 'resetToDefault';

/** pause, resume and reset differ only in the service method they call. */
function byNameSpec(name: string, op: ScheduleOp): ActionSpec<typeof nameOnly, ScheduleSummary> {
  return {
    name,
    minRole: 'operator',
    schema: nameOnly,
    run: (input, { user, bullpen }) => bullpen.schedules[op](input.name, user.username),
    audit: 'lib',
    revalidate,
  };
}

const pauseSpec = byNameSpec('schedule.pause', 'pause');
const resumeSpec = byNameSpec('schedule.resume', 'resume');
const resetSpec = byNameSpec('schedule.reset', 'resetToDefault');

const triggerSpec: ActionSpec<typeof nameOnly, { jobId: string; jobType: string }> = {
  name: 'schedule.trigger',
  minRole: 'operator',
  schema: nameOnly,
  async run(input, { user, bullpen }) {
    const jobId = await bullpen.schedules.triggerNow(input.name, user.username);
    const { jobType } = await bullpen.schedules.get(input.name);
    return { jobId, jobType };
  },
  audit: 'lib',
  revalidate,
};

export async function editSchedule(input: ScheduleFormInput): Promise<ActionResult<ScheduleSummary>> {
  return runAction(editSpec, input);
}
export async function pauseSchedule(input: { name: string }): Promise<ActionResult<ScheduleSummary>> {
  return runAction(pauseSpec, input);
}
export async function resumeSchedule(input: { name: string }): Promise<ActionResult<ScheduleSummary>> {
  return runAction(resumeSpec, input);
}
export async function resetSchedule(input: { name: string }): Promise<ActionResult<ScheduleSummary>> {
  return runAction(resetSpec, input);
}
export async function triggerSchedule(input: { name: string }): Promise<ActionResult<{ jobId: string; jobType: string }>> {
  return runAction(triggerSpec, input);
}
