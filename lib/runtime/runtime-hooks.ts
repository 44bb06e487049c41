import type { Classification } from '../errors/classify';
import type { Tenant } from '../jobs/tenant';
import type { JobProgressValue } from './handler';

/**
 * Called synchronously on the job's path, so they must be cheap and must not throw, and
 * must not keep or change the context they are given (the processor hands the same one on).
 * `tenant` is the envelope's (absent when the job has none or its envelope is invalid).
 */
export interface RuntimeHooks {
  onStart?(ctx: { jobId: string; type: string; attempt: number; tenant?: Tenant }): void;
  onProgress?(ctx: { jobId: string; type: string; progress: JobProgressValue }): void;
  onComplete?(ctx: { jobId: string; type: string; attempt: number; durationMs: number; result: unknown; tenant?: Tenant }): void;
  onFailed?(ctx: {
    jobId: string;
    type: string;
    attempt: number;
    tenant?: Tenant;
    durationMs: number;
    error: Error;
    classification: Classification;
    final: boolean;
  }): void;
}
