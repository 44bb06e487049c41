/**
 * Runs `task` every `intervalMs` after the previous run ended (never two at once), on a
 * timer that does not keep the process alive: the worker's own lifecycle decides when
 * it ends. `task` handles its own errors. The returned stop waits for a run under way.
 */
export function startPeriodic(intervalMs: number, task: () => Promise<void>): () => Promise<void> {
  if (!Number.isInteger(intervalMs) || intervalMs < 1_000)
    throw new Error(`A periodic task's interval must be at least 1000 ms, got ${intervalMs}`);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const schedule = () => {
    timer = setTimeout(() => {
      running = task().finally(() => {
        running = undefined;
        if (!stopped) schedule();
      });
    }, intervalMs);
    timer.unref();
  };
  schedule();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
