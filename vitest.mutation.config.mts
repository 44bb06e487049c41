import { defineConfig } from 'vitest/config';
import path from 'node:path';

/**
 * The tests `npm run mutation` runs against each mutant (stryker.config.mjs): only the
 * files that pin the modules in scope, unit and integration together in one project
 * (Stryker's vitest runner runs one). The integration files start their own
 * redis-server (tests/helpers/use-test-redis.ts), as they do under `npm test`.
 */
export const MUTATION_TEST_FILES = [
  'tests/unit/processor.test.ts',
  'tests/unit/classify.test.ts',
  'tests/unit/backoff.test.ts',
  'tests/unit/with-retry.test.ts',
  'tests/unit/retry-policy.test.ts',
  'tests/unit/dispatcher.test.ts',
  'tests/unit/cron-preview.test.ts',
  'tests/unit/schedule-resolve.test.ts',
  'tests/unit/auth-password.test.ts',
  'tests/unit/ssrf-guard.test.ts',
  'tests/unit/ip-ranges.test.ts',
  'tests/integration/dlq-store.test.ts',
  'tests/integration/dlq-store-rules.test.ts',
  'tests/integration/auth-rate-limiter.test.ts',
  // Issue 27's modules. Tests that spawn a worker process are left out: a mutant is
  // switched on inside the test runner only, never in a child process.
  'tests/unit/session-check.test.ts',
  'tests/unit/shutdown.test.ts',
  'tests/unit/job-run.test.ts',
  'tests/unit/runtime-cancel.test.ts',
  'tests/unit/sign-in.test.ts',
  'tests/unit/job-scheduler-sync.test.ts',
  'tests/unit/dlq-reconciler.test.ts',
  'tests/unit/worker-pool.test.ts',
  'tests/integration/runtime-retries.test.ts',
  'tests/integration/final-failure-record.test.ts',
  'tests/integration/dlq-reconciler.test.ts',
  'tests/integration/idempotency-store.test.ts',
  'tests/integration/schedules.test.ts',
  'tests/integration/schedule-service.test.ts',
  'tests/integration/dashboard-operations.test.ts',
  'tests/integration/dashboard-job-operations.test.ts',
  'tests/integration/dashboard-job-operations-effects.test.ts',
  'tests/integration/foreign-queues.test.ts',
  'tests/integration/dashboard-queue-operations.test.ts',
  'tests/integration/retry-all-preview.test.ts',
  'tests/integration/dashboard-dlq-bulk.test.ts',
  'tests/integration/dlq-bulk-operations.test.ts',
  'tests/integration/sign-in-caps.test.ts',
  'tests/integration/auth-users.test.ts',
  'tests/unit/app/webhook-dispatch.test.ts',
  'tests/integration/app/webhook-dispatch.test.ts',
  'tests/unit/attempt-deadlines.test.ts',
  'tests/unit/json-fast-check.test.ts',
  'tests/unit/app/payload-fast-check.test.ts',
];

export default defineConfig({
  resolve: {
    alias: {
      '@': path.resolve(import.meta.dirname),
      // As tsconfig.json's `paths` does for tsx and Playwright (dashboard/server-only.ts says why).
      'server-only': path.resolve(import.meta.dirname, 'dashboard/server-only.ts'),
    },
  },
  test: {
    // MUTATION_TESTS=a.test.ts,b.test.ts narrows the list while working on one module.
    include: process.env.MUTATION_TESTS ? process.env.MUTATION_TESTS.split(',') : MUTATION_TEST_FILES,
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
