/**
 * The worker process: `npm run worker`. Runs every shipped handler, the reconciler and
 * the schedules, serves /metrics, and shuts down gracefully on SIGTERM/SIGINT.
 */
import { loadConfigOrExit } from '@/lib/config';
import { createLogger } from '@/lib/logging/logger';
import { installShutdown } from '@/lib/runtime/shutdown';
import { startWorkerProcess } from './worker-process';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger('worker', config.LOG_LEVEL);
  const worker = await startWorkerProcess({ config, logger });
  installShutdown(() => worker.stop(), logger);
}

main().catch((err) => {
  console.error('worker failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
