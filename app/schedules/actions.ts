'use server';

import { z } from 'zod';
import { runAction, type ActionSpec } from '@/app/_lib/action';
import type { ActionResult } from '@/lib/dashboard/action-result';
import { saveScheduleForm } from '@/lib/dashboard/schedules-edit';
import { scheduleFormSchema, type ScheduleFormInput } from '@/lib/dashboard/schedules-form';
import { scheduleNameSchema } from '@/lib/schedules/schedule-definition';
import type { ScheduleSummary } from '@/lib/schedules/schedule-summary';

/*
 * Schedule mutations, each through runAction (authorise → safeParse → lib → audit →
 * revalidate → typed result). The schedule service writes its own domain audit entry
 * (schedule.edit with the pattern's from → to, ...); runAction's entry records the
 * dashboard request that caused it.
 */

const nameOnly = z.object({ name: scheduleNameSchema }).strict();
const revalidate = () => ['/schedules'];
const target = (name: string) => ({ kind: 'schedule', id: name });

const editSpec: ActionSpec<typeof scheduleFormSchema, ScheduleSummary> = {
  name: 'schedule.edit',
  minRole: 'operator',
  schema: scheduleFormSchema,
  run: (input, { user, bullpen }) => saveScheduleForm(bullpen, input, user.username),
  // The schedule service audits every change as the signed-in user.
  audit: 'lib',
  revalidate,
};

const pauseSpec: ActionSpec<typeof nameOnly, ScheduleSummary> = {
  name: 'schedule.pause',
  minRole: 'operator',
  schema: nameOnly,
  run: (input, { user, bullpen }) => bullpen.schedules.pause(input.name, user.username),
  // The schedule service audits every change as the signed-in user.
  audit: 'lib',
  revalidate,
};

const resumeSpec: ActionSpec<typeof nameOnly, ScheduleSummary> = {
  name: 'schedule.resume',
  minRole: 'operator',
  schema: nameOnly,
  run: (input, { user, bullpen }) => bullpen.schedules.resume(input.name, user.username),
  // The schedule service audits every change as the signed-in user.
  audit: 'lib',
  revalidate,
};

const resetSpec: ActionSpec<typeof nameOnly, ScheduleSummary> = {
  name: 'schedule.reset',
  minRole: 'operator',
  schema: nameOnly,
  run: (input, { user, bullpen }) => bullpen.schedules.resetToDefault(input.name, user.username),
  // The schedule service audits every change as the signed-in user.
  audit: 'lib',
  revalidate,
};

const triggerSpec: ActionSpec<typeof nameOnly, { jobId: string; jobType: string }> = {
  name: 'schedule.trigger',
  minRole: 'operator',
  schema: nameOnly,
  async run(input, { user, bullpen }) {
    const jobId = await bullpen.schedules.triggerNow(input.name, user.username);
    const { jobType } = await bullpen.schedules.get(input.name);
    return { jobId, jobType };
  },
  // The schedule service audits every change as the signed-in user.
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
