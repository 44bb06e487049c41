/**
 * The mailer's worker process: `npm run example:worker`. The same runtime as the
 * source application's worker, handed another job table.
 */
import { loadConfigOrExit } from '@/lib/config';
import { createLogger } from '@/lib/logging/logger';
import { installShutdown } from '@/lib/runtime/shutdown';
import { startWorkerProcess } from '@/lib/runtime/worker-process';
import { MAILER_JOBS, MAILER_SCHEDULES } from './jobs';
import { Outbox } from './outbox';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger('mailer-worker', config.LOG_LEVEL);
  const worker = await startWorkerProcess({
    jobs: MAILER_JOBS,
    schedules: MAILER_SCHEDULES,
    handlerDeps: (bullpen) => ({ outbox: new Outbox(bullpen.redis, bullpen.keys) }),
    config,
    logger,
  });
  installShutdown(() => worker.stop(), logger);
}

main().catch((err) => {
  console.error('mailer worker failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
