import type { ChildProcess } from 'node:child_process';

/**
 * Ends a forked helper of the benchmark (the clients, Bull Board, the bare server):
 * closing its IPC channel makes it close its server and leave on its own; SIGKILL
 * after 5 s is the fallback. Resolves once it has exited.
 */
export function closeChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    if (child.connected) child.disconnect();
    setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
  });
}
