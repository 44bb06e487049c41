import { createBullpen } from '@/lib/bullpen';
import { silentLogger } from '@/lib/logging/logger';
import { describeRedisRestartDrill } from '../helpers/redis-restart-drill';
import { TEST_JOBS, TEST_SCHEDULES } from '../helpers/test-jobs';

/*
 * The fault drill of docs/observability.md ("Redis restarts") on the test table: a real
 * worker process (tests/fixtures/delivering-worker.ts) posting each `notify` job to the
 * sink. What it shows is the runtime's: no job is lost, none is dead-lettered, and a job
 * runs twice only inside the AOF window. The shipped application's drill, through its
 * webhook handler and delivery lock, is tests/integration/app/fault-drill.test.ts.
 */
describeRedisRestartDrill({
  title: 'Redis killed with SIGKILL and restarted mid-load, on the test table',
  logName: 'redis restart drill (test table)',
  type: 'notify',
  fixture: 'delivering-worker.ts',
  env: {},
  bullpen: (config) =>
    createBullpen({
      jobs: TEST_JOBS,
      schedules: TEST_SCHEDULES,
      webhookJobType: 'notify',
      config,
      logger: silentLogger,
      connectionRole: 'resilient',
    }),
  data: (n) => ({ webhookId: 'drill', event: 'drill', payload: { n } }),
});
