// @ts-check
/**
 * Mutation testing (`npm run mutation`, docs/testing.md#mutation-testing): a report of
 * how much of the core logic the tests would notice breaking, not part of `npm test`.
 * The modules in scope are MUTATED below; the tests run against each mutant are the
 * files vitest.mutation.config.mts lists.
 */

/** The core logic issues 12 and 27 scope the score to, one row each in the per-module table. */
export const MUTATED = [
  'lib/runtime/processor.ts',
  'lib/errors/classify.ts',
  'lib/jobs/backoff.ts',
  'lib/retry/retry-policy.ts',
  'lib/jobs/dispatcher.ts',
  'lib/dlq/dead-letter-store.ts',
  'lib/schedules/resolve-schedule.ts',
  'lib/schedules/schedule-changes.ts',
  'lib/schedules/cron-preview.ts',
  'dashboard/auth/password.ts',
  'dashboard/auth/rate-limiter.ts',
  'dashboard/auth/roles.ts',
  'lib/http/ssrf-guard.ts',
  'lib/http/ip-ranges.ts',
  // Issue 27: the code that keeps the product's promises. Reached through real Redis, so
  // their integration tests run against each mutant (vitest.mutation.config.mts).
  'lib/runtime/worker-pool.ts',
  'lib/runtime/job-run.ts',
  'lib/runtime/final-failures.ts',
  'lib/runtime/shutdown.ts',
  'lib/dlq/reconciler.ts',
  'lib/dlq/bulk-operations.ts',
  'lib/idempotency/idempotency-store.ts',
  'lib/schedules/schedule-service.ts',
  'lib/schedules/job-scheduler-sync.ts',
  'dashboard/jobs/job-operations.ts',
  'dashboard/queues/queue-operations.ts',
  'dashboard/auth/session-check.ts',
  'dashboard/auth/sign-in.ts',
  'jobs/integration/webhook-dispatch.ts',
  // Issue 26's cuts to the runtime's per-job work: the time limit's one timer per job
  // type, and the payload check that stands in for zod on plain JSON.
  'lib/runtime/attempt-deadlines.ts',
  'lib/jobs/json-fast-check.ts',
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: MUTATED,
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.mts', related: false },
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.mutation.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  // Two cores, shared: one test runner and one checker at a time would leave a core idle.
  concurrency: 2,
  timeoutMS: 10_000,
  // The sandbox is a copy of the project: leave out what no test run reads.
  ignorePatterns: ['.next', '.next-*', '.data', 'test-results', 'playwright-report', 'reports', 'tests/e2e', 'docs', 'deploy'],
  // A second run re-tests only the mutants whose code or covering tests changed; without
  // the file (a clean checkout) every mutant runs.
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  reporters: ['progress', 'clear-text', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
