import { useTestRedis } from '../../helpers/use-test-redis';
import { describe, expect, it } from 'vitest';
import { makeBullpen } from '../../helpers/make-bullpen';
import { createHandlers, JOB_TYPE_NAMES } from '../../helpers/shipped-jobs';

describe('the shipped handlers', () => {
  const server = useTestRedis();

  it('are built from the job table, one per type, and are exactly the types the runtime may dispatch', async () => {
    const bullpen = makeBullpen(server.redis);
    try {
      const handlers = createHandlers(bullpen);
      expect(Object.keys(handlers).sort()).toEqual([...bullpen.jobs.handled].sort());
      expect([...bullpen.jobs.names].sort()).toEqual([...JOB_TYPE_NAMES].sort());
      for (const h of Object.values(handlers)) expect(typeof h).toBe('function');
    } finally {
      await bullpen.close();
    }
  });
});
