'use server';

import { z } from 'zod';
import { runAction, type ActionSpec } from '@/dashboard/action';
import { jobIdSchema } from '@/dashboard/jobs/find-job';
import { queueNameSchema } from '@/dashboard/queues/queue-name';
import { withPayloadFieldErrors } from '@/dashboard/payload-field-errors';
import { MAX_PAYLOAD_TEXT, parseJsonText } from '@/dashboard/client/dead-letters-payload';
import { AppError, isAppError } from '@/lib/errors/app-error';
import { editJobData, type JobDataEdit } from '@/dashboard/jobs/job-data-edit';
import { cancelJob as cancelRunningJob, type JobCancel } from '@/dashboard/jobs/job-cancel';

const jobInput = z.object({
  queue: queueNameSchema,
  id: jobIdSchema,
});
type JobInput = z.output<typeof jobInput>;

/** A destructive type's typed confirmation (dashboard/jobs/job-start-rules.ts). */
const confirmField = z.string().max(200).optional();
const retryInput = jobInput.extend({ confirm: confirmField }).strict();

const target = (i: JobInput) => ({ kind: 'job', id: `${i.queue}/${i.id}` });
const paths = (i: JobInput) => [`/queues/${i.queue}/jobs/${i.id}`, `/queues/${i.queue}`];

const retrySpec: ActionSpec<typeof retryInput, { jobId: string; from: 'failed' | 'completed'; deadLetterId?: string }> = {
  name: 'job.retry',
  minRole: 'operator',
  schema: retryInput,
  async run(i, { user, bullpen, jobs }) {
    try {
      return await jobs.retry(i.queue, i.id, user.username, { role: user.role, confirm: i.confirm });
    } catch (err) {
      // A retry its dead letter refused (replayed, discarded) is part of the record too.
      if (isAppError(err) && err.code === 'CONFLICT' && err.details?.deadLetterId) {
        await bullpen.audit.append({
          actor: user.username,
          action: 'job.retry-refused',
          target: target(i),
          details: { deadLetterId: err.details.deadLetterId, status: err.details.status, reason: err.message },
        });
      }
      throw err;
    }
  },
  audit: (i, d) => ({ target: target(i), details: { from: d.from } }),
  revalidate: paths,
};

const promoteSpec: ActionSpec<typeof jobInput, { jobId: string }> = {
  name: 'job.promote',
  minRole: 'operator',
  schema: jobInput,
  run: (i, { jobs }) => jobs.promote(i.queue, i.id),
  audit: (i) => ({ target: target(i) }),
  revalidate: paths,
};

const duplicateInput = jobInput
  .extend({
    /** The edited payload as JSON text; absent: the job's own payload. */
    payload: z.string().max(MAX_PAYLOAD_TEXT).optional(),
    confirm: confirmField,
  })
  .strict();

const duplicateSpec: ActionSpec<typeof duplicateInput, { jobId: string; sourceId: string; edited: boolean }> = {
  name: 'job.duplicate',
  minRole: 'operator',
  schema: duplicateInput,
  async run(i, { user, jobs }) {
    let payload: unknown;
    if (i.payload !== undefined) {
      const json = parseJsonText(i.payload);
      if (!json.ok)
        throw new AppError('VALIDATION', `The payload is not valid JSON: ${json.message}`, { fieldErrors: { payload: [json.message] } });
      payload = json.value;
    }
    return withPayloadFieldErrors(() => jobs.duplicate(i.queue, i.id, { payload }, { role: user.role, confirm: i.confirm }));
  },
  audit: (i, d) => ({ target: target(i), details: { newJobId: d.jobId, edited: d.edited } }),
  revalidate: (i) => [`/queues/${i.queue}`],
};

const editDataInput = jobInput
  .extend({
    /** The edited payload as JSON text. */
    payload: z.string().max(MAX_PAYLOAD_TEXT),
    /** The payload the editor started from, as JSON text: an edit of data changed meanwhile is refused. */
    original: z.string().max(MAX_PAYLOAD_TEXT),
  })
  .strict();

const editDataSpec: ActionSpec<typeof editDataInput, JobDataEdit> = {
  name: 'job.edit-data',
  minRole: 'operator',
  schema: editDataInput,
  async run(i, { user, bullpen }) {
    const payload = jsonField(i.payload, 'payload');
    const original = jsonField(i.original, 'original');
    return withPayloadFieldErrors(() => editJobData(bullpen, i.queue, i.id, { payload, original, by: user.username, role: user.role }));
  },
  // Before and after of each changed value (bounded, dashboard/jobs/payload-changes.ts): the operators' record of the mend.
  audit: (i, d) => ({ target: target(i), details: { state: d.state, changes: d.changes } }),
  revalidate: paths,
};

function jsonField(text: string, field: string): unknown {
  const json = parseJsonText(text);
  if (!json.ok)
    throw new AppError('VALIDATION', `The ${field} is not valid JSON: ${json.message}`, { fieldErrors: { payload: [json.message] } });
  return json.value;
}

const removeSpec: ActionSpec<typeof jobInput, { jobId: string; state: string }> = {
  name: 'job.remove',
  minRole: 'admin',
  schema: jobInput,
  run: (i, { jobs }) => jobs.remove(i.queue, i.id),
  audit: (i, d) => ({ target: target(i), details: { state: d.state } }),
  revalidate: paths,
};

const cancelInput = jobInput.strict();

const cancelSpec: ActionSpec<typeof cancelInput, JobCancel> = {
  name: 'job.cancel',
  minRole: 'operator',
  schema: cancelInput,
  // Waits at most CANCEL_WAIT_MS (3 s) for the job to stop, within the action's bound.
  run: (i, { user, bullpen }) => cancelRunningJob(bullpen, i.queue, i.id, user.username),
  // A request that went out is audited by cancelJob itself, with its outcome; a refusal changed nothing.
  audit: 'lib',
  revalidate: paths,
};

export async function retryJob(input: unknown) {
  return runAction(retrySpec, input);
}
export async function promoteJob(input: unknown) {
  return runAction(promoteSpec, input);
}
export async function duplicateJob(input: unknown) {
  return runAction(duplicateSpec, input);
}
export async function editJobDataAction(input: unknown) {
  return runAction(editDataSpec, input);
}
export async function removeJob(input: unknown) {
  return runAction(removeSpec, input);
}
export async function cancelJob(input: unknown) {
  return runAction(cancelSpec, input);
}
