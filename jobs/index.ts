import type { JobInputOf, JobNameOf, JobPayloadOf } from '@/lib/jobs/job-definition';
import { embeddingJobs } from './embedding/jobs';
import { indexOpsJobs } from './index-ops/jobs';
import { integrationJobs } from './integration/jobs';
import { learningJobs } from './learning/jobs';
import { maintenanceJobs } from './maintenance/jobs';
import { memoryJobs } from './memory/jobs';
import { SOURCE_SCHEDULES } from './schedules';
import { sessionJobs } from './session/jobs';

/**
 * The source application: the 18 job types of docs/requirements.md#background-workers,
 * grouped as the requirements group them. Priorities written there as urgency are
 * translated into BullMQ's order, 1 = most urgent (docs/decisions/0001-priorities.md).
 * Each group's declarations sit beside their handlers and stores in `jobs/<group>/`.
 */
export const SOURCE_JOBS = [
  ...memoryJobs,
  ...embeddingJobs,
  ...learningJobs,
  ...sessionJobs,
  ...indexOpsJobs,
  ...integrationJobs,
  ...maintenanceJobs,
] as const;

export type SourceJobs = typeof SOURCE_JOBS;
export type SourceJobName = JobNameOf<SourceJobs>;
/** The payload a handler receives: the schema's output, defaults filled in. */
export type PayloadOf<K extends SourceJobName> = JobPayloadOf<SourceJobs, K>;
/** What a dispatcher accepts: the schema's input, defaults optional. */
export type PayloadInput<K extends SourceJobName> = JobInputOf<SourceJobs, K>;

export const SOURCE_JOB_NAMES: readonly SourceJobName[] = SOURCE_JOBS.map((d) => d.name);

export { SOURCE_SCHEDULES };
