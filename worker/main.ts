/**
 * The worker process: `npm run worker`. Runs every shipped handler, the reconciler and
 * the schedules, serves /metrics, and shuts down gracefully on SIGTERM/SIGINT.
 */
import { ConfigError, loadConfig } from '@/lib/config';
import { createLogger } from '@/lib/logging/logger';
import { installShutdown } from './shutdown';
import { startWorkerProcess } from './worker-process';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger('worker', config.LOG_LEVEL);
  const worker = await startWorkerProcess({ config, logger });
  installShutdown(async () => {
    await worker.stop();
  }, logger);
}

main().catch((err) => {
  console.error('worker failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
