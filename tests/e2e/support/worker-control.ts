import type { ExitInfo } from './managed-process';

/**
 * The tests' handle on the worker process, which lives in the runner process (see
 * control-server.ts). `stop` sends SIGTERM and resolves with the real exit.
 */
export class WorkerControl {
  constructor(private readonly controlUrl: string) {}

  stop(): Promise<ExitInfo> {
    return this.call<ExitInfo>('POST', '/worker/stop');
  }

  /** Resolves once the new worker serves its metrics port (consumers and schedules are up). */
  start(): Promise<{ pid: number }> {
    return this.call<{ pid: number }>('POST', '/worker/start');
  }

  status(): Promise<{ pid: number | null; running: boolean }> {
    return this.call('GET', '/worker');
  }

  /** Starts the worker again if a failed test left it stopped. */
  async ensureRunning(): Promise<void> {
    if (!(await this.status()).running) await this.start();
  }

  private async call<T>(method: string, path: string): Promise<T> {
    const res = await fetch(`${this.controlUrl}${path}`, { method, signal: AbortSignal.timeout(90_000) });
    const body = (await res.json()) as T & { error?: string };
    if (!res.ok) throw new Error(`${method} ${path}: ${body.error ?? res.status}`);
    return body;
  }
}
