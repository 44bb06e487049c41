import { SECOND, MINUTE, HOUR } from '@/lib/jobs/durations';
import { defineJob } from '@/lib/jobs/job-definition';
import type { AppStores } from '../app-stores';
import { createTrajectoryProcessHandler } from './trajectory-process';
import { createPatternTrainingHandler } from './pattern-training';
import { createEwcConsolidationHandler } from './ewc-consolidation';
import { trajectoryProcessSchema, patternTrainingSchema, ewcConsolidationSchema } from './schemas';

/** The learning group's job types (docs/requirements.md#background-workers). */
export const learningJobs = [
  defineJob({
    name: 'trajectory-process',
    group: 'learning',
    description: 'Turn raw trajectories into training samples.',
    schema: trajectoryProcessSchema,
    example: {},
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 5 * SECOND },
    timeoutMs: 10 * MINUTE,
    priority: 'MEDIUM',
    concurrency: 2,
    critical: false,
    resourceFields: ['trajectoryIds'],
    handler: (stores: AppStores) => createTrajectoryProcessHandler(stores),
  }),
  defineJob({
    name: 'pattern-training',
    group: 'learning',
    description: 'Train the pattern model on the training samples and store it with its metrics.',
    schema: patternTrainingSchema,
    example: { epochs: 5 },
    attempts: 2,
    backoff: { type: 'fixed', delayMs: 60 * SECOND },
    timeoutMs: 1 * HOUR,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
    resourceFields: ['modelName'],
    handler: (stores: AppStores) => createPatternTrainingHandler(stores),
  }),
  defineJob({
    name: 'ewc-consolidation',
    group: 'learning',
    description: 'Anchor the current model with its Fisher information so later training does not forget.',
    schema: ewcConsolidationSchema,
    example: {},
    attempts: 2,
    backoff: { type: 'fixed', delayMs: 60 * SECOND },
    timeoutMs: 30 * MINUTE,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
    resourceFields: ['modelName'],
    handler: (stores: AppStores) => createEwcConsolidationHandler(stores),
  }),
] as const;
