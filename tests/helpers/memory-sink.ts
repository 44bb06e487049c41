import type { DeadLetterInput, DeadLetterSink } from '@/lib/dlq/sink';

/**
 * An in-memory DeadLetterSink for runtime tests: keeps every input, idempotent per
 * (queue, jobId) as the real store is, and can wait for an entry to arrive.
 */
export class MemorySink implements DeadLetterSink {
  /** Every call, duplicates included, in order. */
  readonly calls: DeadLetterInput[] = [];
  private readonly entries = new Map<string, DeadLetterInput>();
  private waiters: Array<() => void> = [];

  async record(input: DeadLetterInput): Promise<{ id: string; created: boolean }> {
    this.calls.push(input);
    const id = `${input.queue}:${input.jobId}`;
    const created = !this.entries.has(id);
    if (created) this.entries.set(id, input);
    for (const wake of this.waiters.splice(0)) wake();
    return { id, created };
  }

  /** The first recorded input of each job. */
  get recorded(): DeadLetterInput[] {
    return [...this.entries.values()];
  }

  get(queue: string, jobId: string): DeadLetterInput | undefined {
    return this.entries.get(`${queue}:${jobId}`);
  }

  /** Resolves with the job's dead letter once it is recorded; rejects after `timeoutMs`. */
  async waitFor(queue: string, jobId: string, timeoutMs = 10_000): Promise<DeadLetterInput> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const entry = this.get(queue, jobId);
      if (entry) return entry;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no dead letter for ${queue}/${jobId} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}
