import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANDLED_TYPES } from '@/lib/jobs/handled-types';
import { JOB_TYPE_NAMES } from '@/lib/jobs/registry';
import type { EmbeddedRedis } from '@/lib/redis/embedded-server';
import { createHandlers } from '@/worker/handlers';
import { makeBullpen } from '../helpers/bullpen';
import { startTestRedis } from '../helpers/redis';

describe('the shipped handlers', () => {
  let redis: EmbeddedRedis;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('are exactly the types the dispatcher accepts, and cover all 18 job types', async () => {
    const bullpen = makeBullpen(redis);
    try {
      const handlers = createHandlers({ bullpen });
      expect(Object.keys(handlers).sort()).toEqual([...HANDLED_TYPES].sort());
      expect([...HANDLED_TYPES].sort()).toEqual([...JOB_TYPE_NAMES].sort());
      for (const h of Object.values(handlers)) expect(typeof h).toBe('function');
    } finally {
      await bullpen.close();
    }
  });
});
