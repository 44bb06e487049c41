import type { JobInputOf, JobNameOf, JobPayloadOf } from '@/lib/jobs/job-definition';
import { embeddingJobs } from './embedding/jobs';
import { indexOpsJobs } from './index-ops/jobs';
import { integrationJobs } from './integration/jobs';
import { learningJobs } from './learning/jobs';
import { maintenanceJobs } from './maintenance/jobs';
import { memoryJobs } from './memory/jobs';
import { SHIPPED_SCHEDULES } from './schedules';
import { sessionJobs } from './session/jobs';

/**
 * The shipped application: the 18 job types of docs/requirements.md#background-workers,
 * grouped as the requirements group them. Priorities written there as urgency are
 * translated into BullMQ's order, 1 = most urgent (docs/decisions/0001-priorities.md).
 * Each group's declarations sit beside their handlers and stores in `jobs/<group>/`.
 */
export const SHIPPED_JOBS = [
  ...memoryJobs,
  ...embeddingJobs,
  ...learningJobs,
  ...sessionJobs,
  ...indexOpsJobs,
  ...integrationJobs,
  ...maintenanceJobs,
] as const;

export type ShippedJobs = typeof SHIPPED_JOBS;
export type ShippedJobName = JobNameOf<ShippedJobs>;
/** The payload a handler receives: the schema's output, defaults filled in. */
export type PayloadOf<K extends ShippedJobName> = JobPayloadOf<ShippedJobs, K>;
/** What a dispatcher accepts: the schema's input, defaults optional. */
export type PayloadInput<K extends ShippedJobName> = JobInputOf<ShippedJobs, K>;

export const SHIPPED_JOB_NAMES: readonly ShippedJobName[] = SHIPPED_JOBS.map((d) => d.name);

export { SHIPPED_SCHEDULES };
