import 'server-only';
import type { Job, Queue } from 'bullmq';
import { z } from 'zod';
import type { Bullpen } from '@/lib/bullpen';
import { AppError } from '@/lib/errors/app-error';
import { envelopeSchema } from '@/lib/jobs/envelope';
import { keepCompletion } from '@/lib/runtime/attempt-record';
import { priorityName } from '@/lib/jobs/priority';
import { resolveQueue } from '@/dashboard/queues/queue-ref';
import { type AddedJob, addJobRequestSchema, toDispatchOptions } from '@/dashboard/client/add-job-form';
import { parseJsonText } from '@/dashboard/client/dead-letters-payload';
import { type AddedRawJob, addRawJobSchema } from '@/dashboard/client/add-raw-job';
import { requireQueueName } from '@/dashboard/queues/queue-page';
import { findJob } from './find-job';
import { checkDestructiveStart, checkResourceOwners, type Starter } from './job-start-rules';
import { validatePayloadEdit } from './payload-edit';

export type RetryOutcome = 'retried' | 'skipped';

/** Who starts a job when a caller says nothing: the least role that may start one at all. */
const AN_OPERATOR: Starter = { role: 'operator' };

/**
 * Single-job mutations of the dashboard. Each refuses with an AppError that says why
 * (NOT_FOUND, CONFLICT) and changes nothing when it refuses.
 */
export class JobOperations {
  constructor(private readonly bullpen: Bullpen) {}

  /**
   * Retries a failed (or re-runs a completed) job with fresh attempts. A failed job's
   * dead letter is claimed first, as a DLQ replay claims it: a job whose dead letter was
   * already replayed or discarded is refused with the reason (CONFLICT), so one failure
   * never runs twice through the two views (docs/decisions/0008-one-record-per-failure.md).
   */
  async retry(
    queueName: string,
    id: string,
    by: string,
    who: Starter = AN_OPERATOR,
  ): Promise<{ jobId: string; from: 'failed' | 'completed'; deadLetterId?: string }> {
    const { type, job, queue } = await this.load(queueName, id);
    if (type) this.checkDestructive(type, job.data, who);
    const state = await job.getState();
    if (state !== 'failed' && state !== 'completed') {
      throw new AppError('CONFLICT', `Job ${id} is ${state}; only failed or completed jobs can be retried`, { state });
    }
    // A completed job, or a foreign queue's (no dead letters here): retried as it is.
    if (state === 'completed' || !type) {
      // The run it completed is in BullMQ's fields, which the retry clears: into its attempt record first
      // (the table's types only: a foreign queue's hashes get no Bullpen field).
      if (state === 'completed' && type) await keepCompletion(this.bullpen.redis, queue.toKey(job.id!), job);
      await job.retry(state, { resetAttemptsMade: true, resetAttemptsStarted: true });
      return { jobId: job.id!, from: state };
    }
    const claim = await this.bullpen.dlq.claimQueueRetry(type, job.id!, by, job.data);
    if (claim.outcome === 'refused') {
      throw new AppError('CONFLICT', `Job ${id} was not retried: ${claim.reason}`, { status: claim.status, deadLetterId: claim.id });
    }
    try {
      await job.retry(state, { resetAttemptsMade: true, resetAttemptsStarted: true });
    } catch (err) {
      await this.bullpen.dlq.unclaimQueueRetry(claim, job.id!);
      throw err;
    }
    return { jobId: job.id!, from: state, ...(claim.outcome === 'claimed' ? { deadLetterId: claim.id } : {}) };
  }

  /** Moves a delayed job to wait now. */
  async promote(queueName: string, id: string): Promise<{ jobId: string }> {
    const { job } = await this.load(queueName, id);
    const state = await job.getState();
    if (state !== 'delayed') throw new AppError('CONFLICT', `Job ${id} is ${state}; only delayed jobs can be promoted`, { state });
    await job.promote();
    return { jobId: job.id! };
  }

  /**
   * Dispatches a new job from this one's payload, tenant and priority through the
   * dispatcher (validated against the type's schema again; no idempotency key, or
   * the copy would be deduplicated away). With `payload`, the copy carries that edit
   * instead, checked as an edit-and-replay is: the type's schema field by field, and
   * no change to a locked field, so a duplicate stays with its tenant and resources.
   * A refused edit adds nothing.
   */
  async duplicate(
    queueName: string,
    id: string,
    edit: { payload?: unknown } = {},
    who: Starter = AN_OPERATOR,
  ): Promise<{ jobId: string; sourceId: string; edited: boolean }> {
    const { type, job, queue } = await this.load(queueName, id);
    if (!type) {
      // A foreign queue's job: the same name, data (or the edit, as raw JSON: no schema here) and retry options.
      const copy = await queue.add(job.name, edit.payload !== undefined ? edit.payload : job.data, {
        ...(job.opts.attempts ? { attempts: job.opts.attempts } : {}),
        ...(job.opts.backoff ? { backoff: job.opts.backoff } : {}),
        ...(job.opts.priority ? { priority: job.opts.priority } : {}),
      });
      return { jobId: copy.id!, sourceId: job.id!, edited: edit.payload !== undefined };
    }
    const env = envelopeSchema.safeParse(job.data);
    if (!env.success) {
      throw new AppError('VALIDATION', `Job ${id} was not enqueued by Bullpen (no envelope); it cannot be duplicated`);
    }
    const edited = edit.payload !== undefined;
    let payload = env.data.payload;
    if (edited) payload = validatePayloadEdit(this.bullpen.jobs, type, env.data.payload, edit.payload);
    // Tenant and resources are the original's (locked above), so only the destructive rule applies.
    checkDestructiveStart(this.bullpen.jobs, type, env.data.tenant, payload, who);
    const priority = priorityName(job.priority);
    const result = await this.bullpen.dispatcher.dispatch(type, payload as never, {
      ...(env.data.tenant ? { tenant: env.data.tenant } : {}),
      ...(priority ? { priority } : {}),
    });
    return { jobId: result.jobId, sourceId: job.id!, edited };
  }

  /**
   * Adds a new job of a queue's type from the dashboard's form (`AddJobRequest`): the
   * form's fields by their own rules (priority, the delay's bound, tenant ids), then the
   * JSON payload by the type's schema through the dispatcher, so nothing is added unless
   * all of it is valid. A refused field is named: `details.fieldErrors` for the form's
   * fields, `details.issues` for the payload's (as a duplicate's edit reports them). A
   * type without a handler in this build is refused (NO_HANDLER): its job would wait forever.
   */
  async add(input: unknown, who: Pick<Starter, 'role'>): Promise<AddedJob> {
    const form = addJobRequestSchema.safeParse(input);
    if (!form.success) {
      const message = form.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
      throw new AppError('VALIDATION', `The job was not added: ${message}`, { fieldErrors: z.flattenError(form.error).fieldErrors });
    }
    const type = requireQueueName(this.bullpen, form.data.queue);
    if (!this.bullpen.dispatcher.handles(type)) {
      throw new AppError('NO_HANDLER', `${type} has no handler in this build, so a job of it would never run; nothing was added`, { type });
    }
    const json = parseJsonText(form.data.payload);
    if (!json.ok) {
      throw new AppError('VALIDATION', `The payload is not valid JSON: ${json.message}`, { fieldErrors: { payload: [json.message] } });
    }
    const opts = toDispatchOptions(form.data);
    // The rules read a valid payload; an invalid one is refused by the dispatcher below, naming its fields.
    const valid = this.bullpen.jobs.get(type).schema.safeParse(json.value);
    if (valid.success) {
      checkDestructiveStart(this.bullpen.jobs, type, opts.tenant, valid.data, { role: who.role, confirm: form.data.confirm });
      await checkResourceOwners(this.bullpen, type, opts.tenant, valid.data, who.role);
    }
    const { jobId } = await this.bullpen.dispatcher.dispatch(type, json.value as never, opts);
    return {
      jobId,
      queue: type,
      priority: opts.priority ?? this.bullpen.jobs.get(type).priority,
      delayMs: opts.delayMs ?? 0,
      ...(opts.tenant ? { tenant: opts.tenant } : {}),
    };
  }

  /**
   * Adds a job to a foreign queue as its own producers would: the name and the data as
   * given (JSON, no schema: the queue is another service's), with BullMQ's delay,
   * priority and attempts. The job table's queues take "Add a job" (`add`), which checks
   * the type's schema. Refused input adds nothing.
   */
  async addRaw(input: unknown): Promise<AddedRawJob> {
    const form = addRawJobSchema.safeParse(input);
    if (!form.success) {
      const message = form.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
      throw new AppError('VALIDATION', `The job was not added: ${message}`, { fieldErrors: z.flattenError(form.error).fieldErrors });
    }
    const resolved = await resolveQueue(this.bullpen, form.data.queue);
    if (!resolved.foreign) {
      throw new AppError(
        'VALIDATION',
        `${resolved.ref} is one of this dashboard's job types: add its jobs with their schema ("Add a job")`,
      );
    }
    const json = parseJsonText(form.data.data);
    if (!json.ok)
      throw new AppError('VALIDATION', `The data is not valid JSON: ${json.message}`, { fieldErrors: { data: [json.message] } });
    const { delaySeconds, priority, attempts } = form.data;
    const job = await resolved.queue.add(form.data.name, json.value, {
      ...(delaySeconds ? { delay: delaySeconds * 1000 } : {}),
      ...(priority ? { priority } : {}),
      ...(attempts ? { attempts } : {}),
    });
    return { jobId: job.id!, queue: resolved.ref, name: form.data.name };
  }

  /** Removes a job that is not running (an active job holds a lock: CONFLICT). */
  async remove(queueName: string, id: string): Promise<{ jobId: string; state: string }> {
    const { job } = await this.load(queueName, id);
    const state = await job.getState();
    if (state === 'active') throw new AppError('CONFLICT', `Job ${id} is running; wait for it to finish before removing it`);
    try {
      await job.remove();
    } catch (err) {
      throw new AppError('CONFLICT', `Job ${id} could not be removed: ${(err as Error).message}`);
    }
    return { jobId: job.id!, state };
  }

  /** The destructive rule for a job read back from BullMQ: its envelope's tenant and payload, or its bare data. */
  private checkDestructive(type: string, data: unknown, who: Starter): void {
    const env = envelopeSchema.safeParse(data);
    checkDestructiveStart(this.bullpen.jobs, type, env.success ? env.data.tenant : undefined, env.success ? env.data.payload : data, who);
  }

  /** The job and its queue; `type` only for the job table's own queues. */
  private async load(queueName: string, id: string): Promise<{ type?: string; job: Job; queue: Queue }> {
    const resolved = await resolveQueue(this.bullpen, queueName);
    const job = await findJob(resolved.queue, id);
    if (!job?.id) throw new AppError('NOT_FOUND', `No job ${id} in ${resolved.ref}`, { queue: resolved.ref, jobId: id });
    return { type: resolved.type, job, queue: resolved.queue };
  }
}
