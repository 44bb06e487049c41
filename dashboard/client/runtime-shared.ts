/**
 * What the browser uses of the runtime: constants, pure functions and types of lib/
 * modules that the worker and the CLIs use too, so they stay in lib/ (which never imports
 * the dashboard) and are reached here, the one place components/ import. Each is defined
 * once, in the lib/ module named; the client rules check that none of them leads to
 * Redis, BullMQ or a server-only module.
 */
export type { SignInFailureRow } from '@/lib/audit/sign-in-failures';
export { DEAD_LETTER_STATUSES } from '@/lib/dlq/dead-letter-id';
export { describeReplayOutcomes } from '@/lib/dlq/replay-outcomes';
export { ERROR_CLASSES } from '@/lib/errors/classify';
export type { HealthReport } from '@/lib/health/health-status';
export { type RedisState, unreachableSentence } from '@/lib/health/redis-watch';
export { PRIORITY_NAMES, type PriorityName } from '@/lib/jobs/priority';
export type { CronPreview } from '@/lib/schedules/cron-preview';
export type { ScheduleSummary } from '@/lib/schedules/schedule-summary';
export { plural } from '@/lib/text/plural';
