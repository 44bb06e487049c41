import { trace } from '@opentelemetry/api';
import type { Telemetry } from 'bullmq';
import { BullMQOtel } from 'bullmq-otel';
import type { Tenant } from '../jobs/tenant';

/**
 * BullMQ's OpenTelemetry hooks (bullmq-otel) for Bullpen's queues and workers, when
 * BULLPEN_TRACES is on; undefined (no tracing, no cost) otherwise. The spans go to
 * whatever tracer provider the process registered: the worker starts the
 * OpenTelemetry SDK (worker/tracing.ts), configured by the standard OTEL_* variables.
 * A dispatch's producer span and the worker's consumer span share one trace: BullMQ
 * carries the context in the job.
 */
export function bullmqTelemetry(enabled: boolean): Telemetry | undefined {
  return enabled ? (new BullMQOtel({ tracerName: 'bullpen' }) as unknown as Telemetry) : undefined;
}

/**
 * Puts Bullpen's own facts on the span the job runs in (BullMQ's consumer span when
 * tracing is on; a no-op otherwise): the job's id, type, tenant and attempt.
 */
export function tagJobSpan(job: { jobId: string; type: string; attempt: number; tenant?: Tenant }): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  span.setAttributes({
    'bullpen.job.id': job.jobId,
    'bullpen.job.type': job.type,
    'bullpen.job.attempt': job.attempt,
    ...(job.tenant ? { 'bullpen.tenant.org_id': job.tenant.orgId } : {}),
    ...(job.tenant?.workspaceId ? { 'bullpen.tenant.workspace_id': job.tenant.workspaceId } : {}),
  });
}
