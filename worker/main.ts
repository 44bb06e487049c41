/**
 * The worker process: `npm run worker`. Runs the handlers of the application BULLPEN_APP
 * names (applications.ts; the shipped application by default), the reconciler and the
 * schedules, serves /metrics, and shuts down gracefully on SIGTERM/SIGINT.
 */
import { selectedApp } from '@/applications';
import { startAppWorker } from '@/lib/app/start-app-worker';
import { loadConfigOrExit } from '@/lib/config';
import { createLogger } from '@/lib/logging/logger';
import { installShutdown } from '@/lib/runtime/shutdown';
import { startTracing } from './tracing';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const app = selectedApp(config);
  const logger = createLogger('worker', config.LOG_LEVEL);
  // Off by default; on, before the first queue or worker so every span is exported.
  const tracing = config.BULLPEN_TRACES ? startTracing('bullpen-worker') : undefined;
  const worker = await startAppWorker(app, { config, logger });
  logger.info({ app: app.name }, 'worker started');
  installShutdown(async () => {
    const result = await worker.stop();
    await tracing?.shutdown().catch((err: unknown) => logger.warn({ err }, 'traces not flushed'));
    return result;
  }, logger);
}

main().catch((err) => {
  console.error('worker failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
