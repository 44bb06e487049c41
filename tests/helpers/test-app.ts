import { z } from 'zod';
import { defineApp } from '@/lib/app/app-definition';
import { TEST_JOBS, TEST_SCHEDULES } from './test-jobs';

/**
 * The test table as an application: what a test's worker process (tests/fixtures/) is
 * handed in place of the shipped one, with `startAppWorker(testApp, …)` as
 * worker/main.ts does with the application BULLPEN_APP names. No settings, no stores:
 * the test table's handlers need none, and a fixture hands the ones it watches.
 */
export const testApp = defineApp({
  name: 'test',
  jobs: TEST_JOBS,
  schedules: TEST_SCHEDULES,
  settings: z.object({}),
  createDeps: () => undefined,
  webhookJobType: 'notify',
});
