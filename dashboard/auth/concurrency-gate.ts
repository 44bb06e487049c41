import 'server-only';
import { AppError } from '@/lib/errors/app-error';

export interface ConcurrencyGateOptions {
  /** Tasks running at once. */
  limit: number;
  /** Tasks waiting for a turn; one more is refused at once. */
  maxWaiting: number;
  /** What a refused caller is told. */
  busyMessage: string;
}

interface Waiter {
  priority: boolean;
  resolve(): void;
  reject(err: Error): void;
}

/**
 * Bounds concurrent expensive work in one process. Password hashing is the case: each
 * scrypt takes ~100 ms and 32 MiB on libuv's small thread pool, so unbounded anonymous
 * sign-in attempts would queue up and starve signed-in users' requests. Beyond the
 * waiting room a caller gets RATE_LIMITED (scope `busy`) at once instead of piling up.
 *
 * A `priority` caller (sign-in: a client with no recent failures) waits ahead of the
 * others, and when the room is full takes the place of the newest ordinary waiter,
 * who is refused as busy: a flood of guesses cannot keep a clean client out.
 */
export class ConcurrencyGate {
  private active = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly opts: ConcurrencyGateOptions) {
    if (!Number.isInteger(opts.limit) || opts.limit < 1) throw new RangeError('limit must be an integer >= 1');
    if (!Number.isInteger(opts.maxWaiting) || opts.maxWaiting < 0) throw new RangeError('maxWaiting must be an integer >= 0');
  }

  /** Running and waiting tasks now. */
  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }

  async run<T>(task: () => Promise<T>, opts: { priority?: boolean } = {}): Promise<T> {
    const priority = opts.priority === true;
    if (this.active >= this.opts.limit) {
      if (this.waiting.length >= this.opts.maxWaiting) {
        const displaced = priority ? this.waiting.findLastIndex((w) => !w.priority) : -1;
        if (displaced < 0) throw this.busy();
        this.waiting.splice(displaced, 1)[0].reject(this.busy());
      }
      await new Promise<void>((resolve, reject) => {
        const waiter = { priority, resolve, reject };
        const firstOrdinary = priority ? this.waiting.findIndex((w) => !w.priority) : -1;
        if (firstOrdinary < 0) this.waiting.push(waiter);
        else this.waiting.splice(firstOrdinary, 0, waiter);
      });
    } else {
      this.active++;
    }
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter, or free it.
      const next = this.waiting.shift();
      if (next) next.resolve();
      else this.active--;
    }
  }

  private busy(): AppError {
    return new AppError('RATE_LIMITED', this.opts.busyMessage, { retryAfterMs: 1_000, scope: 'busy' });
  }
}
