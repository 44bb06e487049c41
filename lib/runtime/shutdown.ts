import type { Logger } from '../logging/logger';
import type { AbandonedJob } from './worker-pool';

/**
 * A worker process's exit codes after a stop, so a supervisor can tell a clean stop
 * from one that left work behind.
 */
export const SHUTDOWN_EXIT = {
  /** Every running job finished within the grace period. */
  clean: 0,
  /** The stop failed, or a second signal ended the wait. */
  interrupted: 1,
  /** The grace period ran out: the jobs still running were abandoned to the stalled check (and logged). */
  abandoned: 3,
} as const;

/** The message a parent process sends over IPC to ask for a graceful stop (scripts/start.ts). */
export const SHUTDOWN_MESSAGE = 'bullpen:shutdown';

/**
 * SIGTERM/SIGINT: stop taking jobs, let the running ones finish within the grace
 * period, then exit 0; if the period ran out first, log the jobs abandoned and exit 3.
 * A second signal means the operator will not wait: exit 1 at once (the stalled check
 * gives the interrupted jobs to another worker).
 *
 * A parent may ask for the same stop with SHUTDOWN_MESSAGE over IPC. Unlike a signal,
 * asking again never forces an exit: a Ctrl-C reaches the whole terminal's process
 * group, so the start command's own stop request arrives after the worker already has
 * the signal, and must not count as the operator's second one.
 */
export function installShutdown(stop: () => Promise<{ abandoned: readonly AbandonedJob[] }>, logger: Logger): void {
  let stopping = false;
  const begin = (reason: string) => {
    stopping = true;
    logger.info({ reason }, 'shutting down: no new jobs, finishing running ones');
    stop().then(
      (result) => {
        const { abandoned } = result;
        if (abandoned.length === 0) process.exit(SHUTDOWN_EXIT.clean);
        logger.error({ abandoned, exitCode: SHUTDOWN_EXIT.abandoned }, `stopped with ${abandoned.length} job(s) abandoned`);
        process.exit(SHUTDOWN_EXIT.abandoned);
      },
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(SHUTDOWN_EXIT.interrupted);
      },
    );
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(SHUTDOWN_EXIT.interrupted);
    }
    begin(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('message', (message) => {
    if (message === SHUTDOWN_MESSAGE && !stopping) begin('parent');
  });
}
