import { SECOND, MINUTE, HOUR } from '@/lib/jobs/durations';
import { defineJob } from '@/lib/jobs/job-definition';
import type { AppStores } from '../app-stores';
import { createEmbeddingBatchHandler } from './embedding-batch';
import { createEmbeddingReindexHandler } from './embedding-reindex';
import { embeddingBatchSchema, embeddingReindexSchema } from './schemas';
import { summarizeEmbeddingBatch, summarizeEmbeddingReindex } from './summaries';

/** The embedding group's job types (docs/requirements.md#background-workers). */
export const embeddingJobs = [
  defineJob({
    name: 'embedding-batch',
    group: 'embedding',
    description: 'Embed texts in batches of 32 and store their vectors.',
    schema: embeddingBatchSchema,
    example: { namespace: 'docs', items: [{ id: 'doc-1', text: 'How to reset a password' }] },
    attempts: 5,
    backoff: { type: 'exponential', delayMs: 2 * SECOND },
    timeoutMs: 1 * MINUTE,
    priority: 'HIGH',
    concurrency: 4,
    critical: false,
    resourceFields: ['namespace'],
    handler: (stores: AppStores) => createEmbeddingBatchHandler(stores),
    summarize: summarizeEmbeddingBatch,
  }),
  defineJob({
    name: 'embedding-reindex',
    group: 'embedding',
    description: 'Re-embed a whole namespace with the current embedder, resumably.',
    schema: embeddingReindexSchema,
    example: { namespace: 'docs' },
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 30 * SECOND },
    timeoutMs: 1 * HOUR,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
    resourceFields: ['namespace'],
    handler: (stores: AppStores) => createEmbeddingReindexHandler(stores),
    summarize: summarizeEmbeddingReindex,
  }),
] as const;
