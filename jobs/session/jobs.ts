import { SECOND, MINUTE } from '@/lib/jobs/durations';
import { defineJob } from '@/lib/jobs/job-definition';
import type { AppStores } from '../app-stores';
import { createSessionCleanupHandler } from './session-cleanup';
import { createSessionArchiveHandler } from './session-archive';
import { sessionCleanupSchema, sessionArchiveSchema } from './schemas';

/** The session group's job types (docs/requirements.md#background-workers). */
export const sessionJobs = [
  defineJob({
    name: 'session-cleanup',
    group: 'session',
    description: 'Expire sessions idle past maxAge.',
    schema: sessionCleanupSchema,
    example: {},
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 10 * SECOND },
    timeoutMs: 2 * MINUTE,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
    handler: (stores: AppStores) => createSessionCleanupHandler(stores),
  }),
  defineJob({
    name: 'session-archive',
    group: 'session',
    description: 'Write idle sessions to a JSONL archive under .data/, then remove them.',
    schema: sessionArchiveSchema,
    example: {},
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 10 * SECOND },
    timeoutMs: 10 * MINUTE,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
    handler: (stores: AppStores) => createSessionArchiveHandler(stores),
  }),
] as const;
