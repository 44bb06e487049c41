import 'server-only';
import type { Job } from 'bullmq';
import { z } from 'zod';
import { cancelledBy } from '@/lib/errors/cancelled-error';
import { readEnvelope } from '@/lib/jobs/envelope';
import { priorityName, PRIORITY_NAMES } from '@/lib/jobs/priority';
import { tenantSchema } from '@/lib/jobs/tenant';
import { jobStateSchema } from '@/dashboard/client/job-states';
import { retryMarkSchema } from '@/dashboard/client/retry-mark';
import { truncateText, truncateValue, truncatedValueSchema, MAX_VALUE_BYTES } from './truncate';

export { JOB_STATES, jobStateSchema, type JobStateName } from '@/dashboard/client/job-states';

export const progressSchema = z.object({
  percent: z.number().min(0).max(100),
  phase: z.string().optional(),
  detail: z.record(z.string(), z.unknown()).optional(),
});
export type JobProgress = z.infer<typeof progressSchema>;

/** One row of a job list. Small: no payload, no return value, a short error. */
export const jobSummarySchema = z.object({
  id: z.string(),
  queue: z.string(),
  name: z.string(),
  state: z.union([jobStateSchema, z.literal('waiting-children'), z.literal('unknown')]).optional(),
  tenant: tenantSchema.optional(),
  priority: z.number().int(),
  priorityName: z.enum(PRIORITY_NAMES as [string, ...string[]]).optional(),
  progress: progressSchema,
  attemptsMade: z.number().int(),
  maxAttempts: z.number().int(),
  createdAt: z.number().int(),
  processedAt: z.number().int().optional(),
  finishedAt: z.number().int().optional(),
  /** When a delayed job becomes due. */
  runAt: z.number().int().optional(),
  failedReason: z.string().optional(),
  /** Who cancelled it while it ran (lib/errors/cancelled-error.ts), for a job that ended so. */
  cancelledBy: z.string().optional(),
  /** Set when a DLQ replay or a schedule enqueued it. */
  replayOf: z.string().optional(),
  schedule: z.string().optional(),
  /** A completed job's own summary of its result; `partial` when part of its work failed. */
  outcome: z.object({ text: z.string(), partial: z.boolean() }).optional(),
  /** A failed job that Retry would refuse, and why (its dead letter was replayed or discarded). */
  retryRefused: retryMarkSchema.optional(),
});
export type JobSummary = z.infer<typeof jobSummarySchema>;

/** Everything the job page shows; large values arrive truncated with a flag. */
export const jobDetailSchema = jobSummarySchema.extend({
  /** The envelope without its payload; `payload` is apart so it can be truncated alone. */
  envelope: z.object({
    requestId: z.string().optional(),
    idempotencyKey: z.string().optional(),
    dispatchedAt: z.number().int().optional(),
    replayOf: z.string().optional(),
    schedule: z.string().optional(),
  }),
  /** Whether the data is a Bullpen envelope (a job added by other tools may not be). */
  enveloped: z.boolean(),
  payload: truncatedValueSchema,
  options: truncatedValueSchema,
  returnValue: truncatedValueSchema,
  /** One stack per failed attempt, newest last, each cut to 16 KiB. */
  stacktrace: z.array(z.string()),
  attemptsStarted: z.number().int(),
  stalledCount: z.number().int(),
  processedBy: z.string().optional(),
  deduplicationId: z.string().optional(),
});
export type JobDetail = z.infer<typeof jobDetailSchema>;

const STACK_BYTES = 16 * 1024;
const REASON_BYTES = 2 * 1024;

/**
 * Maps a BullMQ Job once into the plain summary the UI renders; no Job object
 * reaches a component (bull-board's formatJob).
 */
export function formatJob(job: Job, queue: string, state?: JobSummary['state'], outcomes?: OutcomeReader): JobSummary {
  // A plain producer's bare payload reads as an envelope too, tenant included (docs/producers.md).
  const read = readEnvelope(job);
  const env = 'error' in read || read.bare ? undefined : read.envelope;
  const tenant = 'error' in read ? undefined : read.envelope.tenant;
  const priority = job.priority ?? job.opts?.priority ?? 0;
  const delay = job.delay ?? job.opts?.delay ?? 0;
  return {
    id: String(job.id),
    queue,
    name: job.name,
    state,
    tenant,
    priority,
    priorityName: priorityName(priority),
    progress: normalizeProgress(job.progress),
    attemptsMade: job.attemptsMade ?? 0,
    // BullMQ runs a job with attempts 0 (some producers send it) once, as with 1.
    maxAttempts: Math.max(1, job.opts?.attempts ?? 1),
    createdAt: job.timestamp,
    processedAt: job.processedOn || undefined,
    finishedAt: job.finishedOn || undefined,
    runAt: delay > 0 ? job.timestamp + delay : undefined,
    failedReason: job.failedReason ? truncateText(job.failedReason, REASON_BYTES).text : undefined,
    cancelledBy: job.failedReason ? cancelledBy(job) : undefined,
    replayOf: env?.replayOf,
    schedule: env?.schedule,
    outcome: job.finishedOn && !job.failedReason ? outcomes?.outcomeOf(queue, job.returnvalue) : undefined,
  };
}

/** The job table's summaries of results (JobCatalog.outcomeOf). */
export interface OutcomeReader {
  outcomeOf(type: string, result: unknown): JobSummary['outcome'];
}

/** The job page's model: the summary plus data, options, return value and stacks, each bounded. */
export function formatJobDetail(
  job: Job,
  queue: string,
  state?: JobSummary['state'],
  outcomes?: OutcomeReader,
  maxBytes = MAX_VALUE_BYTES,
): JobDetail {
  const read = readEnvelope(job);
  const env = 'error' in read || read.bare ? undefined : read.envelope;
  const { payload, tenant: _t, ...envelopeRest } = env ?? { payload: job.data, tenant: undefined };
  return {
    ...formatJob(job, queue, state, outcomes),
    envelope: env ? envelopeRest : {},
    enveloped: env !== undefined,
    payload: truncateValue(payload, maxBytes),
    options: truncateValue(job.opts ?? {}, maxBytes),
    returnValue: truncateValue(job.returnvalue, maxBytes),
    stacktrace: (job.stacktrace ?? []).filter(Boolean).map((s) => truncateText(s, STACK_BYTES).text),
    attemptsStarted: job.attemptsStarted ?? 0,
    stalledCount: job.stalledCounter ?? 0,
    processedBy: job.processedBy,
    deduplicationId: job.deduplicationId,
  };
}

/**
 * Progress as the runtime stores it is `{percent, phase, detail}`; jobs from other
 * producers may report a bare number, a string or nothing. Always a 0-100 percent.
 */
export function normalizeProgress(raw: unknown): JobProgress {
  if (typeof raw === 'number' && Number.isFinite(raw)) return { percent: clamp(raw) };
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    const o = raw as Record<string, unknown>;
    const percent = typeof o.percent === 'number' && Number.isFinite(o.percent) ? clamp(o.percent) : 0;
    const detail =
      o.detail && typeof o.detail === 'object' && !Array.isArray(o.detail) ? boundedDetail(o.detail as Record<string, unknown>) : undefined;
    return {
      percent,
      ...(typeof o.phase === 'string' ? { phase: o.phase.slice(0, 200) } : {}),
      ...(detail ? { detail } : {}),
    };
  }
  return { percent: 0 };
}

function boundedDetail(detail: Record<string, unknown>): Record<string, unknown> | undefined {
  const t = truncateValue(detail, 4 * 1024);
  return t.truncated ? { note: 'progress detail truncated', bytes: t.bytes } : detail;
}

function clamp(n: number): number {
  return Math.max(0, Math.min(100, Math.round(n)));
}
