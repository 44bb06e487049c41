import { shippedApp } from '@/jobs/shipped-app';
import type { Bullpen } from '@/lib/bullpen';
import type { EmbeddedRedis } from '@/lib/redis/embedded-server';
import { type TestBullpenOptions, testBullpen } from './test-bullpen';

/**
 * A Bullpen for the shipped application's job table, schedules and metric prefix (see
 * testBullpen). The shipped application's tests (tests/{unit,integration}/app/) use it; the
 * runtime's tests use testBullpen (tests/helpers/test-jobs.ts).
 */
export function makeBullpen(redis: EmbeddedRedis, overrides: TestBullpenOptions = {}): Bullpen {
  return testBullpen(redis, { ...shippedApp, ...overrides });
}
