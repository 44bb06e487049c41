import { SECOND, MINUTE } from '@/lib/jobs/durations';
import { defineJob } from '@/lib/jobs/job-definition';
import type { AppStores } from '../app-stores';
import { createMemoryConsolidationHandler } from './memory-consolidation';
import { createMemoryCleanupHandler } from './memory-cleanup';
import { createMemoryImportanceDecayHandler } from './memory-importance-decay';
import { memoryConsolidationSchema, memoryCleanupSchema, memoryImportanceDecaySchema } from './schemas';

/** The memory group's job types (docs/requirements.md#background-workers). */
export const memoryJobs = [
  defineJob({
    name: 'memory-consolidation',
    group: 'memory',
    description: 'Cluster similar memories, synthesise each cluster into a semantic memory.',
    schema: memoryConsolidationSchema,
    example: { workspaceId: 'ws-support' },
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 5 * SECOND },
    timeoutMs: 5 * MINUTE,
    priority: 'MEDIUM',
    concurrency: 2,
    critical: false,
    resourceFields: ['userId'],
    handler: (stores: AppStores) => createMemoryConsolidationHandler(stores),
  }),
  defineJob({
    name: 'memory-cleanup',
    group: 'memory',
    description: 'Drop memories (and their vectors) below an importance or past an age.',
    schema: memoryCleanupSchema,
    example: { olderThanDays: 90 },
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 10 * SECOND },
    timeoutMs: 5 * MINUTE,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
    handler: (stores: AppStores) => createMemoryCleanupHandler(stores),
  }),
  defineJob({
    name: 'memory-importance-decay',
    group: 'memory',
    description: 'Multiply every memory’s importance by a decay factor.',
    schema: memoryImportanceDecaySchema,
    example: { decayFactor: 0.97 },
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 10 * SECOND },
    timeoutMs: 5 * MINUTE,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
    handler: (stores: AppStores) => createMemoryImportanceDecayHandler(stores),
  }),
] as const;
