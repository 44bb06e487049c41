import { UnrecoverableError, type Job } from 'bullmq';
import { z } from 'zod';
import type { Alerter } from '../alerts/alerter';
import { classifyError, type Classification } from '../errors/classify';
import { PermanentError } from '../errors/permanent-error';
import { deadLetterInput } from '../dlq/dead-letter-input';
import type { DeadLetterSink } from '../dlq/sink';
import { type JobEnvelope, readEnvelope } from '../jobs/envelope';
import type { CatalogEntry } from '../jobs/job-catalog';
import { payloadTooLarge } from '../jobs/payload-limit';
import type { Logger } from '../logging/logger';
import type { WorkerMetrics } from '../metrics/worker-metrics';
import type { AttemptRecorder } from '../metrics/history-recorder';
import type { FinalFailures } from './final-failures';
import type { JobHandler } from './handler';
import type { RuntimeHooks } from './runtime-hooks';
import { oversizedData, takeEnqueuedData } from './bounded-worker';
import { compileJsonFastCheck } from '../jobs/json-fast-check';
import { JobRun } from './job-run';
import { AttemptDeadlines } from './attempt-deadlines';
import type { RunningAttempts } from './running-attempts';
import { tagJobSpan } from '../telemetry/tracing';

export interface ProcessorDeps {
  type: string;
  /** The type's definition: its schema, time limit and whether a final failure alerts. */
  definition: CatalogEntry;
  // The job table types each handler's payload; here one processor takes any of them.
  // biome-ignore lint/suspicious/noExplicitAny: a handler of any payload type is accepted (contravariance).
  handler: JobHandler<any, unknown>;
  sink: DeadLetterSink;
  alerter: Alerter;
  /** Where a final failure's dead letter waits for BullMQ to record the failure. */
  deadLetters: Pick<FinalFailures, 'prepare'>;
  logger: Logger;
  metrics?: WorkerMetrics;
  hooks?: RuntimeHooks;
  /** Per-attempt time limit; default: the definition's. */
  timeoutMs?: number;
  /** The hourly history's tallies (BULLPEN_HISTORY); absent when it is off. */
  history?: AttemptRecorder;
  /** The attempts of this type running now: what a cancel (cancel-relay.ts) or a stop that runs out of time finds. */
  running?: RunningAttempts<JobRun>;
}

/**
 * Wraps a handler into a BullMQ processor: validates the envelope and payload, gives
 * the handler a signal that aborts at the attempt's time limit, classifies what it
 * throws, and prepares a final failure's dead letter, written once BullMQ has moved the
 * job to the failed set (final-failures.ts: a failure BullMQ refused, its lock lost, gets
 * none; the reconciler covers a crash between the two).
 */
export function buildProcessor(deps: ProcessorDeps) {
  const def = deps.definition;
  const timeoutMs = deps.timeoutMs ?? def.timeoutMs;
  const debug = deps.logger.isLevelEnabled('debug');
  const m = deps.metrics?.forType(deps.type);
  const deadlines = new AttemptDeadlines(timeoutMs);
  // Most payloads zod would take and give back unchanged: this says so without zod's copy.
  const fastCheck = compileJsonFastCheck(def.schema);

  /**
   * What the attempt needs before its handler: its envelope, its JobRun (in the running
   * list, where a cancel finds it) and the start hooks. Synchronous and apart from the
   * async function below, which then keeps few locals across its await: V8 keeps every
   * local of a waiting async function in an object allocated at each call.
   */
  function begin(job: Job): Attempt {
    const started = performance.now();
    const read = readEnvelope(job);
    const envelope = 'error' in read ? undefined : read.envelope;
    const run = new JobRun(job, deps.type, envelope, deps.logger, deps.hooks);
    deps.running?.add(run);
    if (m) m.active++;
    // One object for both: the hooks must not keep or change it (runtime-hooks.ts).
    const startCtx = { jobId: run.jobId, type: deps.type, attempt: run.attempt, tenant: envelope?.tenant };
    deps.hooks?.onStart?.(startCtx);
    tagJobSpan(startCtx);
    return {
      run,
      started,
      waitMs: deps.history && run.attempt === 1 ? firstWait(job) : undefined,
      envelopeError: 'error' in read ? read.error : undefined,
      enqueued: takeEnqueuedData(job),
    };
  }

  /** The job's payload, checked: the handler's context with its data, or a throw that fails the attempt. */
  function checked(job: Job, a: Attempt): JobRun {
    // One queue, one type: a job named otherwise was meant for another handler.
    if (job.name !== deps.type) {
      throw new PermanentError(
        `Job name "${job.name}" is not this queue's job type "${deps.type}": a Bullpen queue runs one type, and its jobs are named after it (docs/producers.md)`,
        'VALIDATION',
      );
    }
    // Never parsed: only its size and start are known (bounded-worker.ts).
    const oversized = oversizedData(job);
    if (oversized) throw payloadTooLarge(deps.type, oversized.bytes, oversized.limit);
    if (a.envelopeError !== undefined) throw new PermanentError(a.envelopeError, 'VALIDATION');
    const data = a.run.envelopeData?.payload;
    if (fastCheck?.(data)) {
      a.run.data = data;
      return a.run;
    }
    const payload = def.schema.safeParse(data);
    if (!payload.success) {
      // A ZodError classifies as validation: permanent, straight to the DLQ with its message.
      throw Object.assign(payload.error, { message: `Invalid ${deps.type} payload: ${z.prettifyError(payload.error)}` });
    }
    a.run.data = payload.data;
    return a.run;
  }

  function completed({ run, started, waitMs }: Attempt, result: unknown): void {
    const durationMs = performance.now() - started;
    if (m) {
      m.completed++;
      m.observe(durationMs / 1000);
    }
    deps.history?.record(deps.type, 'completed', durationMs, waitMs);
    deps.hooks?.onComplete?.({ jobId: run.jobId, type: deps.type, attempt: run.attempt, durationMs, result, tenant: run.tenant });
    // Completions are counted by the metrics; a line each is for debugging.
    if (debug) run.logger.debug({ latencyMs: Math.round(durationMs) }, 'job completed');
  }

  /** Records why the attempt ended and throws what BullMQ must see: the error, or an UnrecoverableError. */
  async function failed(job: Job, { run, started, waitMs, enqueued }: Attempt, thrown: unknown): Promise<never> {
    const { jobId, attempt } = run;
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    const classification = classifyError(error);
    const final = !classification.retryable || attempt >= run.maxAttempts;
    const durationMs = performance.now() - started;
    if (m) {
      if (final) m.failed++;
      else m.retried++;
      m.observe(durationMs / 1000);
    }
    deps.history?.record(deps.type, final ? 'failed' : 'retried', durationMs, waitMs);
    deps.hooks?.onFailed?.({ jobId, type: deps.type, attempt, tenant: run.tenant, durationMs, error, classification, final });
    run.logger[final ? 'error' : 'warn'](
      {
        err: error,
        retryable: classification.retryable,
        errorClass: classification.errorClass,
        httpStatus: classification.httpStatus,
        latencyMs: Math.round(durationMs),
      },
      final ? 'job failed for good' : 'job attempt failed, will retry',
    );
    // The operator reading the job page sees why each attempt ended; a failed write
    // here must not change the job's outcome.
    await run
      .log(
        `attempt ${attempt}/${run.maxAttempts} failed (${classification.errorClass}): ${error.message.slice(0, 500)}${final ? '' : '; will retry'}`,
      )
      .catch(() => undefined);
    // A cancelled job gets a dead letter only when its type asks for one (deadLetterOnCancel).
    if (final && (classification.errorClass !== 'cancelled' || def.deadLetterOnCancel)) {
      const envelope = asEnqueued(job, run.envelopeData, enqueued);
      deps.deadLetters.prepare(job, () => recordDeadLetter(deps, job, envelope, error, classification, attempt, run.logger));
    }
    if (!classification.retryable) {
      // BullMQ only skips the remaining attempts for an UnrecoverableError.
      const unrecoverable = new UnrecoverableError(error.message);
      unrecoverable.stack = error.stack;
      throw unrecoverable;
    }
    throw error;
  }

  // One parameter on purpose: BullMQ builds an AbortController per job for processors
  // that declare a third (signal) parameter, and on Node 20 an AbortSignal costs more
  // than the rest of a job's bookkeeping. The time limit is ours (attempt-deadlines.ts).
  return async function process(job: Job): Promise<unknown> {
    const a = begin(job);
    try {
      const work = deps.handler(checked(job, a));
      deadlines.add(a.run);
      const result = await a.run.race(work);
      completed(a, result);
      return result;
    } catch (thrown) {
      return await failed(job, a, thrown);
    } finally {
      deadlines.remove(a.run);
      deps.running?.remove(a.run);
      if (m) m.active--;
    }
  };
}

/** One attempt as the processor tracks it, beside its JobRun. */
interface Attempt {
  run: JobRun;
  /** performance.now() at the attempt's start: its duration's origin. */
  started: number;
  /** The first attempt's wait, for the history (firstWait). */
  waitMs: number | undefined;
  /** Why the envelope was refused; undefined when it was read. */
  envelopeError: string | undefined;
  /** The JSON text of the job's data as BullMQ read it (bounded-worker.ts), for a final failure's dead letter. */
  enqueued: string | undefined;
}

/**
 * How long a job's first attempt waited: from when it could first run (its creation, or the
 * end of the delay it was added with: a scheduled run is not late by its schedule) to when a
 * worker took it (BullMQ's processedOn). Later attempts are left out: their wait includes
 * the backoff the job chose. So is a failed job an operator retried (BullMQ resets its
 * attempts but keeps its creation time and its stack traces): its "wait" would be the time
 * it spent failed.
 */
function firstWait(job: Job): number | undefined {
  if (!job.processedOn || job.stacktrace?.length) return undefined;
  return Math.max(0, job.processedOn - job.timestamp - (job.opts.delay ?? 0));
}

/**
 * The envelope as the job was enqueued, read again from the JSON text BullMQ read
 * (bounded-worker.ts): the handler was given the payload's objects themselves, and what
 * it changed in them must not reach the dead letter, which a replay runs again.
 */
function asEnqueued(job: Job, envelope: JobEnvelope | undefined, text: string | undefined): JobEnvelope | undefined {
  if (!envelope || !text) return envelope;
  try {
    const read = readEnvelope({ id: job.id, name: job.name, data: JSON.parse(text), timestamp: job.timestamp, opts: job.opts });
    return 'error' in read ? envelope : read.envelope;
  } catch {
    return envelope;
  }
}

async function recordDeadLetter(
  deps: ProcessorDeps,
  job: Job,
  envelope: JobEnvelope | undefined,
  error: Error,
  classification: Classification,
  attempt: number,
  logger: Logger,
): Promise<void> {
  try {
    const { id, created } = await deps.sink.record(
      deadLetterInput(
        deps.type,
        job,
        {
          error: {
            message: error.message,
            stack: error.stack,
            code: classification.code ?? (classification.httpStatus ? `HTTP_${classification.httpStatus}` : undefined),
            errorClass: classification.errorClass,
          },
          attempts: attempt,
          // BullMQ's time of the failure: the dead letter is written just after it.
          failedAt: job.finishedOn ?? Date.now(),
          source: 'runtime',
        },
        envelope,
        oversizedData(job),
      ),
    );
    logger.warn({ dlqId: id }, created ? 'dead letter recorded' : 'dead letter already recorded');
    // An operator's cancel is a decision, not an incident: no critical alert.
    if (created && deps.definition.critical && classification.errorClass !== 'cancelled') {
      deps.alerter.raise({
        reason: 'critical_dead_letter',
        type: deps.type,
        message: `Critical job type ${deps.type} dead-lettered: ${error.message}`,
        fields: { jobId: String(job.id), dlqId: id },
      });
    }
  } catch (dlqError) {
    // The job still fails; the reconciler will find it in the failed set and record it.
    logger.error({ err: dlqError }, 'could not write the dead letter; the reconciler will recover it');
  }
}
