import type { z } from 'zod';
import { changedLockedFields, lockedFieldsFor } from './locked-fields';
import { PRIORITY, type PriorityName } from './priority';
import * as memory from './schemas/memory';
import * as embedding from './schemas/embedding';
import * as learning from './schemas/learning';
import * as session from './schemas/session';
import * as indexOps from './schemas/index-ops';
import * as integration from './schemas/integration';
import * as maintenance from './schemas/maintenance';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export const JOB_GROUPS = ['memory', 'embedding', 'learning', 'session', 'index', 'integration', 'maintenance'] as const;
export type JobGroup = (typeof JOB_GROUPS)[number];

export interface BackoffDefault {
  /** `exponential` is full jitter, capped at one hour; `fixed` waits `delayMs` each time. */
  type: 'exponential' | 'fixed';
  delayMs: number;
}

export interface JobTypeDefinition<S extends z.ZodType = z.ZodType> {
  group: JobGroup;
  description: string;
  schema: S;
  attempts: number;
  backoff: BackoffDefault;
  /** Per-attempt limit; the runtime aborts the handler's signal when it passes. */
  timeoutMs: number;
  priority: PriorityName;
  /** Jobs of this type one worker process runs at once. */
  concurrency: number;
  /** BullMQ limiter: at most `max` jobs per `durationMs` across all workers. */
  rateLimit?: { max: number; durationMs: number };
  /** A final failure of this type raises an alert (docs/requirements.md#background-workers: critical types). */
  critical: boolean;
  /**
   * Payload fields that name another resource: an edit-and-replay may not change them
   * (nor the tenant's orgId/workspaceId, locked for every type; lib/jobs/locked-fields.ts).
   */
  resourceFields?: readonly string[];
}

function define<S extends z.ZodType>(d: JobTypeDefinition<S>): JobTypeDefinition<S> {
  return d;
}

/**
 * The 18 job types of docs/requirements.md#background-workers with their defaults.
 * Priorities written there as urgency are translated into BullMQ's order, 1 = most
 * urgent (docs/decisions/0001-priorities.md).
 */
export const JOB_TYPES = {
  'memory-consolidation': define({
    group: 'memory',
    description: 'Cluster similar memories, synthesise each cluster into a semantic memory.',
    schema: memory.memoryConsolidationSchema,
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 5 * SECOND },
    timeoutMs: 5 * MINUTE,
    priority: 'MEDIUM',
    concurrency: 2,
    critical: false,
    resourceFields: ['userId'],
  }),
  'memory-cleanup': define({
    group: 'memory',
    description: 'Drop memories (and their vectors) below an importance or past an age.',
    schema: memory.memoryCleanupSchema,
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 10 * SECOND },
    timeoutMs: 5 * MINUTE,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
  }),
  'memory-importance-decay': define({
    group: 'memory',
    description: 'Multiply every memory’s importance by a decay factor.',
    schema: memory.memoryImportanceDecaySchema,
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 10 * SECOND },
    timeoutMs: 5 * MINUTE,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
  }),
  'embedding-batch': define({
    group: 'embedding',
    description: 'Embed texts in batches of 32 and store their vectors.',
    schema: embedding.embeddingBatchSchema,
    attempts: 5,
    backoff: { type: 'exponential', delayMs: 2 * SECOND },
    timeoutMs: 1 * MINUTE,
    priority: 'HIGH',
    concurrency: 4,
    critical: false,
    resourceFields: ['namespace'],
  }),
  'embedding-reindex': define({
    group: 'embedding',
    description: 'Re-embed a whole namespace with the current embedder, resumably.',
    schema: embedding.embeddingReindexSchema,
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 30 * SECOND },
    timeoutMs: 1 * HOUR,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
    resourceFields: ['namespace'],
  }),
  'trajectory-process': define({
    group: 'learning',
    description: 'Turn raw trajectories into training samples.',
    schema: learning.trajectoryProcessSchema,
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 5 * SECOND },
    timeoutMs: 10 * MINUTE,
    priority: 'MEDIUM',
    concurrency: 2,
    critical: false,
    resourceFields: ['trajectoryIds'],
  }),
  'pattern-training': define({
    group: 'learning',
    description: 'Train the pattern model on the training samples and store it with its metrics.',
    schema: learning.patternTrainingSchema,
    attempts: 2,
    backoff: { type: 'fixed', delayMs: 60 * SECOND },
    timeoutMs: 1 * HOUR,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
    resourceFields: ['modelName'],
  }),
  'ewc-consolidation': define({
    group: 'learning',
    description: 'Anchor the current model with its Fisher information so later training does not forget.',
    schema: learning.ewcConsolidationSchema,
    attempts: 2,
    backoff: { type: 'fixed', delayMs: 60 * SECOND },
    timeoutMs: 30 * MINUTE,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
    resourceFields: ['modelName'],
  }),
  'session-cleanup': define({
    group: 'session',
    description: 'Expire sessions idle past maxAge.',
    schema: session.sessionCleanupSchema,
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 10 * SECOND },
    timeoutMs: 2 * MINUTE,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
  }),
  'session-archive': define({
    group: 'session',
    description: 'Write idle sessions to a JSONL archive under .data/, then remove them.',
    schema: session.sessionArchiveSchema,
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 10 * SECOND },
    timeoutMs: 10 * MINUTE,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
  }),
  'index-optimization': define({
    group: 'index',
    description: 'Rebuild a vector index whose deleted ratio passed the threshold.',
    schema: indexOps.indexOptimizationSchema,
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 30 * SECOND },
    timeoutMs: 30 * MINUTE,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
    resourceFields: ['namespace'],
  }),
  'index-rebalance': define({
    group: 'index',
    description: 'Rebalance vector index shards whose imbalance passed the threshold.',
    schema: indexOps.indexRebalanceSchema,
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 30 * SECOND },
    timeoutMs: 30 * MINUTE,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
    resourceFields: ['namespace'],
  }),
  'webhook-dispatch': define({
    group: 'integration',
    description: 'POST a signed event to a registered webhook and record the delivery.',
    schema: integration.webhookDispatchSchema,
    attempts: 10,
    backoff: { type: 'exponential', delayMs: 1 * SECOND },
    timeoutMs: 30 * SECOND,
    priority: 'HIGH',
    concurrency: 20,
    critical: true,
    resourceFields: ['webhookId', 'deliveryId'],
  }),
  'slack-sync': define({
    group: 'integration',
    description: 'Pull new Slack channel messages into memories and post summaries.',
    schema: integration.slackSyncSchema,
    attempts: 5,
    backoff: { type: 'exponential', delayMs: 5 * SECOND },
    timeoutMs: 2 * MINUTE,
    priority: 'MEDIUM',
    concurrency: 2,
    // Slack's Web API allows roughly one call per second per method for most tiers.
    rateLimit: { max: 50, durationMs: MINUTE },
    critical: false,
    resourceFields: ['channelId'],
  }),
  'quota-check': define({
    group: 'maintenance',
    description: 'Compare each tenant’s usage with its quotas; record and alert on violations.',
    schema: maintenance.quotaCheckSchema,
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 10 * SECOND },
    timeoutMs: 2 * MINUTE,
    priority: 'MEDIUM',
    concurrency: 1,
    critical: false,
  }),
  'audit-export': define({
    group: 'maintenance',
    description: 'Export a tenant’s audit stream to JSONL under .data/exports.',
    schema: maintenance.auditExportSchema,
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 30 * SECOND },
    timeoutMs: 30 * MINUTE,
    priority: 'LOW',
    concurrency: 1,
    critical: true,
  }),
  'data-export': define({
    group: 'maintenance',
    description: 'Export all of a tenant’s data to JSONL under .data/exports.',
    schema: maintenance.dataExportSchema,
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 30 * SECOND },
    timeoutMs: 1 * HOUR,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
  }),
  'data-deletion': define({
    group: 'maintenance',
    description: 'Delete all of a tenant’s data in every store and verify none remains.',
    schema: maintenance.dataDeletionSchema,
    attempts: 5,
    backoff: { type: 'exponential', delayMs: 30 * SECOND },
    timeoutMs: 1 * HOUR,
    priority: 'CRITICAL',
    concurrency: 1,
    critical: true,
  }),
} as const satisfies Record<string, JobTypeDefinition>;

export type JobTypeName = keyof typeof JOB_TYPES;
export const JOB_TYPE_NAMES = Object.keys(JOB_TYPES) as JobTypeName[];

/** The payload a handler receives: the schema's output, defaults filled in. */
export type PayloadOf<K extends JobTypeName> = z.output<(typeof JOB_TYPES)[K]['schema']>;
/** What a dispatcher accepts: the schema's input, defaults optional. */
export type PayloadInput<K extends JobTypeName> = z.input<(typeof JOB_TYPES)[K]['schema']>;

export function isJobType(name: string): name is JobTypeName {
  return Object.hasOwn(JOB_TYPES, name);
}

export function jobType<K extends JobTypeName>(name: K): (typeof JOB_TYPES)[K] {
  return JOB_TYPES[name];
}

/** The payload fields of `name` an edit-and-replay may not change (tenant ids and resource names). */
export function lockedFieldsOf(name: JobTypeName): string[] {
  const def: JobTypeDefinition = JOB_TYPES[name];
  return lockedFieldsFor(def.resourceFields);
}

/**
 * The locked fields an edit of `original` into `edited` (already parsed by the type's
 * schema) would change. The original is read through the schema too, so a default the
 * schema fills in is no change. The one check behind the replay and the editor.
 */
export function lockedFieldEdits(name: JobTypeName, original: unknown, edited: unknown): string[] {
  const before = JOB_TYPES[name].schema.safeParse(original);
  return changedLockedFields(before.success ? before.data : original, edited, lockedFieldsOf(name));
}

/** Retention of finished jobs (docs/requirements.md#queues-retries-and-backoff): the last 100 completed, 1,000 failed. */
export const RETENTION = { completed: 100, failed: 1_000 } as const;

/** Upper bound of any exponential backoff delay (docs/requirements.md#background-workers: one hour). */
export const BACKOFF_CAP_MS = HOUR;

export const priorityNumber = (name: PriorityName) => PRIORITY[name];
