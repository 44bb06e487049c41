import type { Queue } from 'bullmq';
import type { JobCatalog } from '../jobs/job-catalog';
import type { HealthStatus } from './health-status';

/** What one check concludes; the checker adds its name, timing and timestamp. */
export interface CheckOutcome {
  status: HealthStatus;
  /** Counts, ages, thresholds and fixed reason codes only. */
  details: Record<string, unknown>;
  /** A latency the check measured itself (the redis PING); default: the check's duration. */
  latencyMs?: number;
}

/** Where the checks find each job type's BullMQ Queue (the QueueRegistry in production). */
export interface QueueSource {
  /** The job table the queues belong to. */
  readonly jobs: JobCatalog;
  get(type: string): Queue;
}
