import { SECOND, MINUTE } from '@/lib/jobs/durations';
import { defineJob } from '@/lib/jobs/job-definition';
import type { AppStores } from '../app-stores';
import { createIndexOptimizationHandler } from './index-optimization';
import { createIndexRebalanceHandler } from './index-rebalance';
import { indexOptimizationSchema, indexRebalanceSchema } from './schemas';

/** The index group's job types (docs/requirements.md#background-workers). */
export const indexOpsJobs = [
  defineJob({
    name: 'index-optimization',
    group: 'index',
    description: 'Rebuild a vector index whose deleted ratio passed the threshold.',
    schema: indexOptimizationSchema,
    example: {},
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 30 * SECOND },
    timeoutMs: 30 * MINUTE,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
    resourceFields: ['namespace'],
    handler: (stores: AppStores) => createIndexOptimizationHandler(stores),
  }),
  defineJob({
    name: 'index-rebalance',
    group: 'index',
    description: 'Rebalance vector index shards whose imbalance passed the threshold.',
    schema: indexRebalanceSchema,
    example: {},
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 30 * SECOND },
    timeoutMs: 30 * MINUTE,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
    resourceFields: ['namespace'],
    handler: (stores: AppStores) => createIndexRebalanceHandler(stores),
  }),
] as const;
