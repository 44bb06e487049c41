import { UnrecoverableError, type Job } from 'bullmq';
import { z } from 'zod';
import type { Alerter } from '../alerts/alerter';
import { classifyError, type Classification } from '../errors/classify';
import { PermanentError } from '../errors/permanent-error';
import { TimeoutError } from '../errors/timeout-error';
import type { DeadLetterSink } from '../dlq/sink';
import { envelopeSchema, type JobEnvelope } from '../jobs/envelope';
import { jobType, type JobTypeName } from '../jobs/registry';
import type { Logger } from '../logging/logger';
import type { WorkerMetrics } from '../metrics/worker-metrics';
import type { JobContext, JobHandler, JobProgressValue } from './handler';

export interface RuntimeHooks {
  onStart?(ctx: { jobId: string; type: JobTypeName; attempt: number }): void;
  onProgress?(ctx: { jobId: string; type: JobTypeName; progress: JobProgressValue }): void;
  onComplete?(ctx: { jobId: string; type: JobTypeName; attempt: number; durationMs: number; result: unknown }): void;
  onFailed?(ctx: {
    jobId: string;
    type: JobTypeName;
    attempt: number;
    durationMs: number;
    error: Error;
    classification: Classification;
    final: boolean;
  }): void;
}

export interface ProcessorDeps {
  type: JobTypeName;
  handler: JobHandler<any, unknown>;
  sink: DeadLetterSink;
  alerter: Alerter;
  logger: Logger;
  metrics?: WorkerMetrics;
  hooks?: RuntimeHooks;
  /** Per-attempt time limit; default: the registry's. */
  timeoutMs?: number;
}

/**
 * Wraps a handler into a BullMQ processor: validates the envelope and payload, gives
 * the handler a signal that aborts at the attempt's time limit, classifies what it
 * throws, and writes the dead letter before BullMQ marks a final failure, so a job is
 * never acknowledged as failed without a DLQ record (the reconciler covers a crash
 * between the two).
 */
export function buildProcessor(deps: ProcessorDeps) {
  const def = jobType(deps.type);
  const timeoutMs = deps.timeoutMs ?? def.timeoutMs;
  const debug = deps.logger.isLevelEnabled('debug');
  // Label lookups hash their labels on every call; bind them once per type.
  const m = deps.metrics && {
    active: deps.metrics.jobsActive.labels(deps.type),
    completed: deps.metrics.jobsTotal.labels(deps.type, 'completed'),
    retried: deps.metrics.jobsTotal.labels(deps.type, 'retried'),
    failed: deps.metrics.jobsTotal.labels(deps.type, 'failed'),
    duration: deps.metrics.duration.labels(deps.type),
  };

  return async function process(job: Job, _token?: string, workerSignal?: AbortSignal): Promise<unknown> {
    const started = performance.now();
    const attempt = job.attemptsMade + 1;
    const maxAttempts = job.opts.attempts ?? 1;
    const jobId = String(job.id);
    const envelope = envelopeSchema.safeParse(job.data);
    const tenant = envelope.success ? envelope.data.tenant : undefined;
    // The child logger is built on first use: at thousands of jobs per second, most
    // jobs never log, and binding fields costs more than the job's own bookkeeping.
    let jobLogger: Logger | undefined;
    const logger = (): Logger =>
      (jobLogger ??= deps.logger.child({
        jobId,
        queue: deps.type,
        attempt,
        maxAttempts,
        requestId: envelope.success ? envelope.data.requestId : undefined,
        tenant: tenant ? [tenant.orgId, tenant.workspaceId].filter(Boolean).join('/') : undefined,
        idempotencyKey: envelope.success ? envelope.data.idempotencyKey : undefined,
      }));
    m?.active.inc();
    deps.hooks?.onStart?.({ jobId, type: deps.type, attempt });

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new TimeoutError(timeoutMs)), timeoutMs);
    const onWorkerAbort = () => controller.abort(workerSignal?.reason ?? new Error('cancelled by the worker'));
    workerSignal?.addEventListener('abort', onWorkerAbort, { once: true });

    try {
      if (!envelope.success) {
        throw new PermanentError(`Invalid job envelope: ${z.prettifyError(envelope.error)}`, 'VALIDATION');
      }
      const payload = def.schema.safeParse(envelope.data.payload);
      if (!payload.success) {
        // A ZodError classifies as validation: permanent, straight to the DLQ with its message.
        throw Object.assign(payload.error, { message: `Invalid ${deps.type} payload: ${z.prettifyError(payload.error)}` });
      }
      const ctx: JobContext = {
        jobId,
        type: deps.type,
        data: payload.data,
        tenant,
        idempotencyKey: envelope.data.idempotencyKey,
        requestId: envelope.data.requestId,
        attempt,
        maxAttempts,
        signal: controller.signal,
        get logger() {
          return logger();
        },
        progress: async (percent, phase, detail) => {
          const value: JobProgressValue = { percent: Math.max(0, Math.min(100, Math.round(percent))), phase, detail };
          await job.updateProgress(value as unknown as object);
          deps.hooks?.onProgress?.({ jobId, type: deps.type, progress: value });
        },
        log: async (line) => {
          await job.log(line);
        },
      };
      const result = await untilAborted(deps.handler(ctx), controller.signal);
      const durationMs = performance.now() - started;
      m?.completed.inc();
      m?.duration.observe(durationMs / 1000);
      deps.hooks?.onComplete?.({ jobId, type: deps.type, attempt, durationMs, result });
      // Completions are counted by the metrics; a line each is for debugging.
      if (debug) logger().debug({ latencyMs: Math.round(durationMs) }, 'job completed');
      return result;
    } catch (thrown) {
      const error = thrown instanceof Error ? thrown : new Error(String(thrown));
      const classification = classifyError(error);
      const final = !classification.retryable || attempt >= maxAttempts;
      const durationMs = performance.now() - started;
      (final ? m?.failed : m?.retried)?.inc();
      m?.duration.observe(durationMs / 1000);
      deps.hooks?.onFailed?.({ jobId, type: deps.type, attempt, durationMs, error, classification, final });
      logger()[final ? 'error' : 'warn'](
        {
          err: error,
          retryable: classification.retryable,
          errorClass: classification.errorClass,
          httpStatus: classification.httpStatus,
          latencyMs: Math.round(durationMs),
        },
        final ? 'job failed for good' : 'job attempt failed, will retry',
      );
      if (final) {
        await recordDeadLetter(deps, job, envelope.success ? envelope.data : undefined, error, classification, attempt, logger());
      }
      if (!classification.retryable) {
        // BullMQ only skips the remaining attempts for an UnrecoverableError.
        const unrecoverable = new UnrecoverableError(error.message);
        unrecoverable.stack = error.stack;
        throw unrecoverable;
      }
      throw error;
    } finally {
      clearTimeout(timer);
      workerSignal?.removeEventListener('abort', onWorkerAbort);
      m?.active.dec();
    }
  };
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
    const { id, created } = await deps.sink.record({
      queue: deps.type,
      jobId: String(job.id),
      jobType: deps.type,
      jobData: envelope ?? (job.data as Record<string, unknown>),
      error: {
        message: error.message,
        stack: error.stack,
        code: classification.code ?? (classification.httpStatus ? `HTTP_${classification.httpStatus}` : undefined),
        errorClass: classification.errorClass,
      },
      attempts: attempt,
      failedAt: Date.now(),
      tenant: envelope?.tenant,
      source: 'runtime',
    });
    logger.warn({ dlqId: id }, created ? 'dead letter recorded' : 'dead letter already recorded');
    if (created && jobType(deps.type).critical) {
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

/**
 * Resolves with the handler's result, or rejects as soon as the signal aborts, even
 * when the handler ignores its signal: a stuck handler cannot hold a slot forever.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new TimeoutError(0));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
