import { defineJob } from '@/lib/jobs/job-definition';
import type { ScheduleDefinition } from '@/lib/schedules/schedule-definition';
import { createSendDigestHandler, sendDigestSchema } from './send-digest';
import { createSendEmailHandler, type MailerStores, sendEmailSchema } from './send-email';

/** The mailer's job table: each type declared once, with its schema, defaults and handler. */
export const MAILER_JOBS = [
  defineJob({
    name: 'send-email',
    group: 'mail',
    description: 'Send one email (to the outbox).',
    schema: sendEmailSchema,
    example: { to: 'ada@example.com', subject: 'Hello' },
    attempts: 5,
    backoff: { type: 'exponential', delayMs: 2_000 },
    timeoutMs: 30_000,
    priority: 'HIGH',
    concurrency: 10,
    handler: (stores: MailerStores) => createSendEmailHandler(stores),
  }),
  defineJob({
    name: 'send-digest',
    group: 'mail',
    description: 'Mail a summary of the emails sent in the last day.',
    schema: sendDigestSchema,
    example: {},
    attempts: 3,
    backoff: { type: 'fixed', delayMs: 60_000 },
    timeoutMs: 60_000,
    handler: (stores: MailerStores) => createSendDigestHandler(stores),
  }),
] as const;

export type MailerJobs = typeof MAILER_JOBS;

/** The mailer's one schedule: the digest, daily at 08:00 UTC. */
export const MAILER_SCHEDULES: readonly ScheduleDefinition[] = [
  {
    name: 'daily-digest',
    jobType: 'send-digest',
    pattern: '0 0 8 * * *',
    tz: 'UTC',
    data: {},
    description: 'Mail the day’s digest, daily at 08:00 UTC.',
  },
];
