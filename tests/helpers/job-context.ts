import { randomUUID } from 'node:crypto';
import { silentLogger } from '@/lib/logging/logger';
import type { JobContext, JobProgressValue } from '@/lib/runtime/handler';

export interface RecordingContext<P> extends JobContext<P> {
  /** Every progress report, in order. */
  progressReports: JobProgressValue[];
  logLines: string[];
}

/**
 * A JobContext for calling a handler directly in a test, recording its progress and
 * log lines. `makeJobContext('memory-cleanup', data, { attempt: 2 })`.
 */
export function makeJobContext<P>(
  type: string,
  data: P,
  overrides: Partial<Omit<JobContext<P>, 'data' | 'type' | 'progress' | 'log'>> = {},
): RecordingContext<P> {
  const progressReports: JobProgressValue[] = [];
  const logLines: string[] = [];
  return {
    jobId: overrides.jobId ?? `test-${randomUUID()}`,
    type,
    data,
    tenant: overrides.tenant,
    idempotencyKey: overrides.idempotencyKey,
    originJobId: overrides.originJobId,
    replayOf: overrides.replayOf,
    editedReplay: overrides.editedReplay,
    requestId: overrides.requestId ?? randomUUID(),
    attempt: overrides.attempt ?? 1,
    maxAttempts: overrides.maxAttempts ?? 3,
    signal: overrides.signal ?? new AbortController().signal,
    logger: overrides.logger ?? silentLogger,
    progressReports,
    logLines,
    progress: async (percent, phase, detail) => {
      progressReports.push({ percent, phase, detail });
    },
    log: async (line) => {
      logLines.push(line);
    },
  };
}
