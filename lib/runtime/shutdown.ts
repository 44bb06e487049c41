import type { Logger } from '../logging/logger';

/**
 * SIGTERM/SIGINT: stop taking jobs, let the running ones finish within the grace
 * period, then exit 0. A second signal means the operator will not wait: exit 1 at
 * once (the stalled check gives the interrupted jobs to another worker).
 */
export function installShutdown(stop: () => Promise<void>, logger: Logger): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down: no new jobs, finishing running ones');
    stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
