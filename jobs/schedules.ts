import type { ScheduleDefinition } from '@/lib/schedules/schedule-definition';

/**
 * The five schedules of the background-workers requirements (docs/requirements.md#background-workers). Patterns have six fields, seconds
 * first; every one is read in UTC (the requirements name UTC for two and no zone for the
 * others, and a server-local zone would make the same text fire at different times on
 * different hosts). `data: {}` means the job type's schema defaults, so a default
 * changed in the schema reaches the schedule without a second edit here.
 */
export const SHIPPED_SCHEDULES: readonly ScheduleDefinition[] = [
  {
    name: 'session-cleanup',
    jobType: 'session-cleanup',
    pattern: '0 */15 * * * *',
    tz: 'UTC',
    data: {},
    description: 'Expire sessions idle past their maximum age, every 15 minutes.',
  },
  {
    name: 'memory-importance-decay',
    jobType: 'memory-importance-decay',
    pattern: '0 0 */6 * * *',
    tz: 'UTC',
    data: {},
    description: 'Decay every memory’s importance, every 6 hours.',
  },
  {
    name: 'index-optimization',
    jobType: 'index-optimization',
    pattern: '0 0 3 * * *',
    tz: 'UTC',
    data: {},
    description: 'Rebuild vector indexes whose deleted ratio passed the threshold, daily at 03:00 UTC.',
  },
  {
    name: 'pattern-training-daily',
    jobType: 'pattern-training',
    pattern: '0 0 4 * * *',
    tz: 'UTC',
    data: {},
    description: 'Train the pattern model on the day’s samples, daily at 04:00 UTC.',
  },
  {
    name: 'quota-check',
    jobType: 'quota-check',
    pattern: '0 0 * * * *',
    tz: 'UTC',
    data: {},
    description: 'Compare every tenant’s usage with its quotas, hourly.',
  },
];
