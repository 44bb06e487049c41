/**
 * The tests' handle on the run's redis-server, which lives in the runner process (see
 * control-server.ts): hang it (SIGSTOP), let it go on (SIGCONT), kill it and start it
 * again on the same port and data. `ensureUp` puts it back for the specs that follow.
 */
export class RedisControl {
  constructor(private readonly controlUrl: string) {}

  pause(): Promise<{ pid: number }> {
    return this.call('POST', '/redis/pause');
  }

  resume(): Promise<{ pid: number }> {
    return this.call('POST', '/redis/resume');
  }

  kill(): Promise<{ pid: number }> {
    return this.call('POST', '/redis/kill');
  }

  start(): Promise<{ pid: number }> {
    return this.call('POST', '/redis/start');
  }

  status(): Promise<{ pid: number | null; running: boolean; paused: boolean }> {
    return this.call('GET', '/redis');
  }

  /** Resumes or restarts Redis if a failed test left it hung or dead. */
  async ensureUp(): Promise<void> {
    const s = await this.status();
    if (s.paused) await this.resume();
    else if (!s.running) await this.start();
  }

  private async call<T>(method: string, path: string): Promise<T> {
    const res = await fetch(`${this.controlUrl}${path}`, { method, signal: AbortSignal.timeout(30_000) });
    const body = (await res.json()) as T & { error?: string };
    if (!res.ok) throw new Error(`${method} ${path}: ${body.error ?? res.status}`);
    return body;
  }
}
