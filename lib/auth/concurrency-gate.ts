import { AppError } from '../errors/app-error';

export interface ConcurrencyGateOptions {
  /** Tasks running at once. */
  limit: number;
  /** Tasks waiting for a turn; one more is refused at once. */
  maxWaiting: number;
  /** What a refused caller is told. */
  busyMessage: string;
}

/**
 * Bounds concurrent expensive work in one process. Password hashing is the case: each
 * scrypt takes ~100 ms and 32 MiB on libuv's small thread pool, so unbounded anonymous
 * sign-in attempts would queue up and starve signed-in users' requests. Beyond the
 * waiting room a caller gets RATE_LIMITED at once instead of piling up.
 */
export class ConcurrencyGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly opts: ConcurrencyGateOptions) {
    if (!Number.isInteger(opts.limit) || opts.limit < 1) throw new RangeError('limit must be an integer >= 1');
    if (!Number.isInteger(opts.maxWaiting) || opts.maxWaiting < 0) throw new RangeError('maxWaiting must be an integer >= 0');
  }

  /** Running and waiting tasks now. */
  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.opts.limit) {
      if (this.waiting.length >= this.opts.maxWaiting) {
        throw new AppError('RATE_LIMITED', this.opts.busyMessage, { retryAfterMs: 1_000 });
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active++;
    }
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter, or free it.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
