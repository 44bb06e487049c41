import 'server-only';
import { z } from 'zod';
import { DEAD_LETTER_STATUSES } from '@/lib/dlq/dead-letter-id';
import type { Bullpen } from '@/lib/bullpen';
import { retryVerdict } from '@/lib/dlq/retry-verdict';
import { envelopeSchema } from '@/lib/jobs/envelope';
import { attemptEntrySchema, readAttemptRecord, unrecordedCompletion } from '@/lib/runtime/attempt-record';
import { findJob } from './find-job';
import { confirmationAsked } from './job-start-rules';
import { retryMarkOf, retryMarkSchema } from '@/dashboard/client/retry-mark';
import { jobFlowSchema, readJobFlow } from './job-flow';
import { formatJobDetail, jobDetailSchema, type JobSummary } from './job-summary';
import { pageCountOf } from '@/dashboard/client/pagination';
import { resolveQueue } from '@/dashboard/queues/queue-ref';
import { truncateText } from './truncate';

export const LOG_PAGE_SIZE = 100;
const LOG_LINE_BYTES = 4 * 1024;

export const jobPageSchema = z.object({
  job: jobDetailSchema,
  logs: z.object({
    /** Oldest first within the page; page 1 holds the newest lines. */
    lines: z.array(z.string()),
    count: z.number().int(),
    page: z.number().int(),
    pageCount: z.number().int(),
  }),
  /** The dead-letter record of the job's failure chain, when it has one (a failed job, or one retried or replayed). */
  deadLetter: z.object({ id: z.string(), status: z.enum(DEAD_LETTER_STATUSES) }).optional(),
  /** A failed job that Retry would refuse, and why: the page says so instead of offering it. */
  retryRefused: retryMarkSchema.optional(),
  /** Its parent and children when the job is part of a BullMQ flow. */
  flow: jobFlowSchema.optional(),
  /** Each attempt the runtime recorded, oldest first (docs/architecture.md#the-attempt-record). */
  attempts: z.object({ entries: z.array(attemptEntrySchema), dropped: z.number().int() }),
  /** Set for a type that destroys data: what an admin types to retry or duplicate it (dashboard/jobs/job-start-rules.ts). */
  confirmation: z.string().optional(),
});
export type JobPage = z.infer<typeof jobPageSchema>;

/**
 * Everything the job page shows, or null when the job is gone (never existed,
 * removed by retention or by an operator). Logs are paged newest first, each line cut
 * to 4 KiB; data, options and return value are truncated at 64 KiB.
 */
export async function readJobPage(bullpen: Bullpen, queueName: string, id: string, logsPage = 1): Promise<JobPage | null> {
  const resolved = await resolveQueue(bullpen, queueName);
  const { queue, ref: type } = resolved;
  const job = await findJob(queue, id);
  if (!job?.id) return null;
  const page = Math.max(1, Math.floor(logsPage) || 1);
  const start = (page - 1) * LOG_PAGE_SIZE;
  const [state, logs, record, flow, attempts] = await Promise.all([
    job.getState(),
    // desc: index 0 is the newest line, so page 1 is the tail of the log.
    queue.getJobLogs(job.id, start, start + LOG_PAGE_SIZE - 1, false),
    // Dead letters are kept for the table's own types only.
    resolved.type ? bullpen.dlq.getByJob(resolved.type, job.id, job.data) : Promise.resolve(undefined),
    readJobFlow(bullpen, job),
    readAttemptRecord(bullpen.redis, queue.toKey(job.id)),
  ]);
  // The job finished between its read and its state's: read it again, so that the page's
  // times, worker and attempts agree with the state it shows (BullMQ writes a job's
  // finishedOn in the script that moves it to completed or failed).
  const current = (state === 'completed' || state === 'failed') && !job.finishedOn ? ((await findJob(queue, id)) ?? job) : job;
  // A job that completed at its first attempt has no record: its one entry is BullMQ's own fields.
  const completion = state === 'completed' ? unrecordedCompletion(attempts, current) : undefined;
  const chain =
    state === 'failed' && resolved.type
      ? (await bullpen.dlq.chainStates(resolved.type, [{ id: job.id, data: job.data }])).get(job.id)
      : undefined;
  const retryRefused = chain ? retryMarkOf(retryVerdict(chain, job.id, current.finishedOn)) : undefined;
  // Read as JobOperations reads it to check a retry or duplicate: the envelope's tenant and payload, or the bare data.
  const env = envelopeSchema.safeParse(job.data);
  const confirmation = resolved.type
    ? confirmationAsked(bullpen.jobs, resolved.type, env.success ? env.data.tenant : undefined, env.success ? env.data.payload : job.data)
    : undefined;
  return {
    job: formatJobDetail(current, type, state as JobSummary['state'], resolved.type ? bullpen.jobs : undefined),
    logs: {
      lines: logs.logs.map((l) => truncateText(l, LOG_LINE_BYTES).text).reverse(),
      count: logs.count,
      page,
      pageCount: pageCountOf(logs.count, LOG_PAGE_SIZE),
    },
    attempts: completion ? { ...attempts, entries: [...attempts.entries, completion] } : attempts,
    ...(record ? { deadLetter: { id: record.id, status: record.status } } : {}),
    ...(retryRefused ? { retryRefused } : {}),
    ...(flow ? { flow } : {}),
    ...(confirmation !== undefined ? { confirmation } : {}),
  };
}
