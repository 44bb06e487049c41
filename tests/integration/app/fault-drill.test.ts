import { shippedApp } from '@/jobs/shipped-app';
import { createBullpen } from '@/lib/bullpen';
import { silentLogger } from '@/lib/logging/logger';
import { describeRedisRestartDrill } from '../../helpers/redis-restart-drill';

/*
 * The fault drill of docs/observability.md ("Redis restarts") on the shipped application:
 * its production worker delivering webhooks (webhook-dispatch, with its delivery lock in
 * Redis) to the sink. The runtime's own drill is tests/integration/redis-restart-drill.test.ts.
 */
describeRedisRestartDrill({
  title: 'Redis killed with SIGKILL and restarted mid-load',
  logName: 'fault drill',
  type: 'webhook-dispatch',
  fixture: 'app/production-worker.ts',
  env: { WEBHOOK_ALLOW_HOSTS: '127.0.0.1' },
  bullpen: (config) => createBullpen({ ...shippedApp, config, logger: silentLogger, connectionRole: 'resilient' }),
  setUp: async (bullpen, sinkUrl) => {
    await bullpen.webhooks.create({ id: 'drill', url: sinkUrl, maxFailures: 10_000 });
  },
  data: (n) => ({ webhookId: 'drill', event: 'drill', payload: { n } }),
});
