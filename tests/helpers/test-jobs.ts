import { z } from 'zod';
import { JobCatalog } from '@/lib/jobs/job-catalog';
import { defineJob } from '@/lib/jobs/job-definition';
import type { ScheduleDefinition } from '@/lib/schedules/schedule-definition';

/*
 * The runtime's own tests run on this table, not on the shipped application's: four
 * generic types that between them use every kind of declaration the runtime reads
 * (a critical type with owned resource fields and a high priority, a rate-limited type
 * with schema defaults, a destructive one at CRITICAL priority that keeps a dead letter
 * when cancelled, and a LOW chore whose
 * payload is all defaults, which TEST_SCHEDULES runs). A team that replaces jobs/ keeps
 * these tests as they are.
 */
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;

export const notifySchema = z.object({
  webhookId: z.string().min(1).max(128),
  event: z.string().min(1).max(128),
  payload: z.record(z.string(), z.unknown()),
});

export const syncSchema = z.object({
  channelId: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Z0-9]+$/i, 'a channel id such as C0123ABCD'),
  limit: z.number().int().min(1).max(1_000).default(200),
});

export const eraseSchema = z.object({
  orgId: z.string().min(1),
  workspaceId: z.string().min(1).optional(),
  reason: z.string().max(500).optional(),
});

export const tidySchema = z.object({
  maxAgeMs: z.number().int().positive().default(DAY),
  batchSize: z.number().int().min(1).max(10_000).default(500),
});

export const TEST_JOBS = [
  defineJob({
    name: 'notify',
    group: 'outbound',
    description: 'Post an event to a receiver.',
    schema: notifySchema,
    example: { webhookId: 'wh-1', event: 'order.created', payload: { orderId: 1 } },
    attempts: 10,
    backoff: { type: 'exponential', delayMs: SECOND },
    timeoutMs: 30 * SECOND,
    priority: 'HIGH',
    concurrency: 20,
    critical: true,
    resourceFields: ['webhookId'],
    resourceKinds: { webhookId: 'webhook' },
    handler: (_deps: unknown) => async () => ({ delivered: true }),
  }),
  defineJob({
    name: 'sync',
    group: 'inbound',
    description: 'Fetch what a channel has new.',
    schema: syncSchema,
    example: { channelId: 'C1' },
    attempts: 5,
    backoff: { type: 'exponential', delayMs: 5 * SECOND },
    timeoutMs: 2 * MINUTE,
    concurrency: 2,
    rateLimit: { max: 50, durationMs: MINUTE },
    handler: (_deps: unknown) => async () => ({ fetched: 0 }),
  }),
  defineJob({
    name: 'erase',
    group: 'maintenance',
    description: 'Delete a tenant’s data.',
    schema: eraseSchema,
    example: { orgId: 'acme' },
    attempts: 5,
    backoff: { type: 'exponential', delayMs: 30 * SECOND },
    timeoutMs: 60 * MINUTE,
    priority: 'CRITICAL',
    critical: true,
    destructive: true,
    deadLetterOnCancel: true,
    handler: (_deps: unknown) => async () => ({ erased: 0 }),
  }),
  defineJob({
    name: 'tidy',
    group: 'maintenance',
    description: 'Remove what is older than its age.',
    schema: tidySchema,
    example: {},
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 10 * SECOND },
    timeoutMs: 2 * MINUTE,
    priority: 'LOW',
    concurrency: 1,
    handler: (_deps: unknown) => async () => ({ removed: 0 }),
  }),
] as const;

/** The test table's one schedule: `tidy` every 15 minutes, in UTC. */
export const TEST_SCHEDULES: readonly ScheduleDefinition[] = [
  { name: 'tidy', jobType: 'tidy', pattern: '0 */15 * * * *', tz: 'UTC', data: {}, description: 'Tidy every 15 minutes.' },
];

export type TestJobs = typeof TEST_JOBS;
export const TEST_CATALOG = new JobCatalog(TEST_JOBS);

export const reportSchema = z.object({
  orgId: z.string().min(1).max(64).optional(),
});

/**
 * The larger test table, for the schedule tests: the test table and `report`, a MEDIUM
 * type whose payload may name an org and is valid empty, run hourly by
 * LARGER_TEST_SCHEDULES. Two schedules on two queues, both with an empty default payload,
 * show what one cannot: a sweep of one type's schedulers that leaves the other's.
 */
export const LARGER_TEST_JOBS = [
  ...TEST_JOBS,
  defineJob({
    name: 'report',
    group: 'maintenance',
    description: 'Report each org’s usage.',
    schema: reportSchema,
    example: { orgId: 'acme' },
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 10 * SECOND },
    timeoutMs: 2 * MINUTE,
    priority: 'MEDIUM',
    concurrency: 1,
    handler: (_deps: unknown) => async () => ({ reported: 0 }),
  }),
] as const;

/** TEST_SCHEDULES and `report` every hour, in UTC. */
export const LARGER_TEST_SCHEDULES: readonly ScheduleDefinition[] = [
  ...TEST_SCHEDULES,
  { name: 'report', jobType: 'report', pattern: '0 0 * * * *', tz: 'UTC', data: {}, description: 'Report usage hourly.' },
];

export const LARGER_TEST_CATALOG = new JobCatalog(LARGER_TEST_JOBS);
