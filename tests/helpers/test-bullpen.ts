import { type Bullpen, type BullpenOptions, createBullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { silentLogger } from '@/lib/logging/logger';
import type { EmbeddedRedis } from '@/lib/redis/embedded-server';
import { uniquePrefix } from './redis';
import { TEST_JOBS, TEST_SCHEDULES } from './test-jobs';

export type TestBullpenOptions = Partial<BullpenOptions> & { env?: Record<string, string> };

/**
 * A Bullpen on the test's redis-server under a unique prefix, with quiet logs, for the
 * runtime's test table (tests/helpers/test-jobs.ts, whose `notify` delivers webhooks) unless
 * `overrides` hand it another application's.
 */
export function testBullpen(redis: EmbeddedRedis, overrides: TestBullpenOptions = {}): Bullpen {
  const { env, ...opts } = overrides;
  return createBullpen({
    jobs: TEST_JOBS,
    schedules: TEST_SCHEDULES,
    webhookJobType: 'notify',
    config: loadConfig({ BULLPEN_DATA_DIR: '.data/test', LOG_LEVEL: 'silent', ...env }),
    redis: { host: '127.0.0.1', port: redis.port },
    prefix: uniquePrefix(),
    logger: silentLogger,
    ...opts,
  });
}
