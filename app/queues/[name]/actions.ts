'use server';

import { z } from 'zod';
import { runAction, type ActionContext, type ActionSpec } from '@/dashboard/action';
import type { BulkOperation, BulkRunner } from '@/dashboard/live/bulk-runner';
import { cleanableStateSchema, MAX_SELECTED_JOBS, RETRY_PREVIEW_LIMIT, type RetryCounts } from '@/dashboard/queues/queue-operations';
import { jobIdSchema } from '@/dashboard/jobs/find-job';
import { queueNameSchema } from '@/dashboard/queues/queue-name';
import { withPayloadFieldErrors } from '@/dashboard/payload-field-errors';
import { type AddedJob, addJobFields, refineAddJob } from '@/dashboard/client/add-job-form';
import { type AddedRawJob, addRawJobSchema } from '@/dashboard/client/add-raw-job';
import { concurrencyInputSchema, type LimitChange, type RateLimit, rateLimitInputSchema } from '@/dashboard/client/throughput-limits';

const queueName = queueNameSchema;
const queueInput = z.object({ queue: queueName });
type QueueInput = z.output<typeof queueInput>;

const queuePaths = (i: { queue: string }) => [`/queues/${i.queue}`, '/'];
const queueTarget = (i: { queue: string }) => ({ kind: 'queue', id: i.queue });

const pauseSpec: ActionSpec<typeof queueInput, null> = {
  name: 'queue.pause',
  minRole: 'operator',
  schema: queueInput,
  run: async (i, { queues }) => {
    await queues.pause(i.queue);
    return null;
  },
  audit: (i) => ({ target: queueTarget(i) }),
  revalidate: queuePaths,
};

const resumeSpec: ActionSpec<typeof queueInput, null> = {
  ...pauseSpec,
  name: 'queue.resume',
  run: async (i, { queues }) => {
    await queues.resume(i.queue);
    return null;
  },
};

const retrySelectedInput = z.object({
  queue: queueName,
  ids: z.array(jobIdSchema).min(1, 'Select at least one job').max(MAX_SELECTED_JOBS, `Select at most ${MAX_SELECTED_JOBS} jobs`),
});
const retrySelectedSpec: ActionSpec<typeof retrySelectedInput, RetryCounts & { message?: string }> = {
  name: 'queue.retry-selected',
  minRole: 'operator',
  schema: retrySelectedInput,
  run: (i, { user, queues }) => queues.retrySelected(i.queue, i.ids, user.username),
  audit: (i, d) => ({ target: queueTarget(i), details: { ids: i.ids.slice(0, 20), count: i.ids.length, ...d } }),
  revalidate: queuePaths,
};

/** Starts a background bulk operation and returns its record for the progress poller. */
function bulkSpec<S extends z.ZodType<{ queue: string }>>(
  name: string,
  minRole: 'operator' | 'admin',
  schema: S,
  work: (i: z.output<S>, ctx: ActionContext) => Parameters<BulkRunner['start']>[1],
  details?: (i: z.output<S>) => Record<string, unknown>,
  /** Refuses before the operation starts (its refusal is the action's answer). */
  before?: (i: z.output<S>, ctx: ActionContext) => Promise<void>,
): ActionSpec<S, BulkOperation> {
  return {
    name,
    minRole,
    schema,
    run: async (i, ctx) => {
      await before?.(i, ctx);
      const { operation } = await ctx.bulk.start({ kind: name, target: queueTarget(i), by: ctx.user.username }, work(i, ctx));
      return operation;
    },
    audit: (i, op) => ({ target: queueTarget(i), details: { operation: op.id, ...details?.(i) } }),
    revalidate: queuePaths,
  };
}

/** What a retry-all preview counted: jobs failed at or before `before` (its `asOf`), the oldest `limit` (its `scanned`). */
const retryAllInput = z
  .object({
    queue: queueName,
    before: z
      .number()
      .int()
      .min(0)
      .refine((t) => t <= Date.now() + 60_000, 'The preview cannot be from the future'),
    limit: z.number().int().min(0).max(RETRY_PREVIEW_LIMIT),
  })
  .strict();
const retryAllSpec = bulkSpec(
  'queue.retry-all',
  'operator',
  retryAllInput,
  (i: z.output<typeof retryAllInput>, { user, queues }) =>
    (report) =>
      queues.retryAllFailed(i.queue, user.username, report, { before: i.before, limit: i.limit }),
  (i) => ({ before: i.before, limit: i.limit }),
  (i, { queues }) => queues.checkBulkRetry(i.queue),
);

const promoteAllSpec = bulkSpec(
  'queue.promote-all',
  'operator',
  queueInput,
  (i: QueueInput, { queues }) =>
    (report) =>
      queues.promoteAll(i.queue, report),
);

const cleanInput = z.object({
  queue: queueName,
  state: cleanableStateSchema,
  /** Jobs older than this many minutes are removed; 0 removes all of the state. */
  olderThanMinutes: z.coerce
    .number()
    .int('Whole minutes')
    .min(0, 'At least 0')
    .max(365 * 24 * 60, 'At most a year'),
});
const cleanSpec = bulkSpec(
  'queue.clean',
  'admin',
  cleanInput,
  (i: z.output<typeof cleanInput>, { queues }) =>
    (report) =>
      queues.clean(i.queue, i.state, i.olderThanMinutes * 60_000, report),
  (i) => ({ state: i.state, olderThanMinutes: i.olderThanMinutes }),
);

const addJobInput = addJobFields.extend({ queue: queueName }).strict().superRefine(refineAddJob);
const addJobSpec: ActionSpec<typeof addJobInput, AddedJob> = {
  name: 'job.add',
  minRole: 'operator',
  schema: addJobInput,
  // Through the dispatcher: the payload meets the type's schema again here, whatever the browser checked.
  run: (i, { user, jobs }) => withPayloadFieldErrors(() => jobs.add(i, { role: user.role })),
  audit: (i, d) => ({
    target: { kind: 'job', id: `${i.queue}/${d.jobId}` },
    ...(d.tenant ? { tenant: d.tenant } : {}),
    details: { jobId: d.jobId, priority: d.priority, delayMs: d.delayMs },
  }),
  revalidate: queuePaths,
};

const addRawJobSpec: ActionSpec<typeof addRawJobSchema, AddedRawJob> = {
  name: 'job.add-raw',
  minRole: 'operator',
  // The reference's prefix and existence are checked where it is used (dashboard/queues/queue-ref.ts).
  schema: addRawJobSchema,
  run: (i, { jobs }) => jobs.addRaw(i),
  audit: (i, d) => ({
    target: { kind: 'job', id: `${d.queue}/${d.jobId}` },
    details: { name: d.name, delaySeconds: i.delaySeconds, priority: i.priority },
  }),
  revalidate: queuePaths,
};

const concurrencyInput = concurrencyInputSchema.extend({ queue: queueName });
const setConcurrencySpec: ActionSpec<typeof concurrencyInput, LimitChange<number>> = {
  name: 'queue.set-concurrency',
  minRole: 'operator',
  schema: concurrencyInput,
  run: (i, { throughput }) => throughput.setConcurrency(i.queue, i.concurrency),
  audit: (i, d) => ({ target: queueTarget(i), details: { before: d.before, after: d.after } }),
  revalidate: queuePaths,
};

const removeConcurrencySpec: ActionSpec<typeof queueInput, LimitChange<number>> = {
  name: 'queue.remove-concurrency',
  minRole: 'operator',
  schema: queueInput,
  run: (i, { throughput }) => throughput.removeConcurrency(i.queue),
  audit: (i, d) => ({ target: queueTarget(i), details: { before: d.before, after: null } }),
  revalidate: queuePaths,
};

const rateLimitInput = rateLimitInputSchema.extend({ queue: queueName });
const setRateLimitSpec: ActionSpec<typeof rateLimitInput, LimitChange<RateLimit>> = {
  name: 'queue.set-rate-limit',
  minRole: 'operator',
  schema: rateLimitInput,
  run: (i, { throughput }) => throughput.setRateLimit(i.queue, i.max, i.durationMs),
  audit: (i, d) => ({ target: queueTarget(i), details: { before: d.before, after: d.after } }),
  revalidate: queuePaths,
};

const removeRateLimitSpec: ActionSpec<typeof queueInput, LimitChange<RateLimit>> = {
  name: 'queue.remove-rate-limit',
  minRole: 'operator',
  schema: queueInput,
  run: (i, { throughput }) => throughput.removeRateLimit(i.queue),
  audit: (i, d) => ({ target: queueTarget(i), details: { before: d.before, after: null } }),
  revalidate: queuePaths,
};

export async function pauseQueue(input: unknown) {
  return runAction(pauseSpec, input);
}
export async function resumeQueue(input: unknown) {
  return runAction(resumeSpec, input);
}
export async function retrySelectedJobs(input: unknown) {
  return runAction(retrySelectedSpec, input);
}
export async function retryAllFailed(input: unknown) {
  return runAction(retryAllSpec, input);
}
export async function promoteAllDelayed(input: unknown) {
  return runAction(promoteAllSpec, input);
}
export async function cleanQueue(input: unknown) {
  return runAction(cleanSpec, input);
}
export async function addJob(input: unknown) {
  return runAction(addJobSpec, input);
}
export async function addRawJob(input: unknown) {
  return runAction(addRawJobSpec, input);
}
export async function setGlobalConcurrency(input: unknown) {
  return runAction(setConcurrencySpec, input);
}
export async function removeGlobalConcurrency(input: unknown) {
  return runAction(removeConcurrencySpec, input);
}
export async function setGlobalRateLimit(input: unknown) {
  return runAction(setRateLimitSpec, input);
}
export async function removeGlobalRateLimit(input: unknown) {
  return runAction(removeRateLimitSpec, input);
}
