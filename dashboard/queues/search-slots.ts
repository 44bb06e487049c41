import 'server-only';
import { AppError } from '@/lib/errors/app-error';

/** Search steps one user may have running at once in a dashboard process (a search runs one step at a time). */
export const SEARCHES_PER_USER = 2;
/** Search steps a dashboard process runs at once, all users together; more wait their turn. */
export const SEARCHES_PER_PROCESS = 4;
/** Steps that may wait for a process slot; one more is refused at once. */
const MAX_WAITING = 16;

export interface SearchSlotsOptions {
  /** @defaultValue SEARCHES_PER_USER */
  perUser?: number;
  /** @defaultValue SEARCHES_PER_PROCESS */
  perProcess?: number;
}

/**
 * Bounds the payload searches of one dashboard process (docs/security.md, "Costly
 * reads"). A search is a run of steps, one in flight at a time, and only a step costs
 * anything, so a running search is a step in flight: a user gets SEARCHES_PER_USER of
 * them, counting those waiting (a third tab's step is refused with RATE_LIMITED, the
 * page says so), and the process runs SEARCHES_PER_PROCESS at once, the others wait in
 * arrival order. A cancelled search asks for no further step, so it ends with the step
 * in flight, which SEARCH_STEP_BYTES bounds.
 */
export class SearchSlots {
  private readonly perUser: number;
  private readonly perProcess: number;
  private readonly users = new Map<string, number>();
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(opts: SearchSlotsOptions = {}) {
    this.perUser = opts.perUser ?? SEARCHES_PER_USER;
    this.perProcess = opts.perProcess ?? SEARCHES_PER_PROCESS;
    for (const [k, v] of Object.entries({ perUser: this.perUser, perProcess: this.perProcess }))
      if (!Number.isInteger(v) || v < 1) throw new RangeError(`${k} must be an integer >= 1`);
  }

  /** Steps running now, and waiting for a process slot. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Runs one search step for `user`, or refuses it (RATE_LIMITED) over the user's bound or a full waiting room. */
  async run<T>(user: string, step: () => Promise<T>): Promise<T> {
    const mine = this.users.get(user) ?? 0;
    if (mine >= this.perUser)
      throw new AppError('RATE_LIMITED', `You have ${this.perUser} searches running already; wait for one or cancel it.`, {
        retryAfterMs: 1_000,
      });
    if (this.running >= this.perProcess && this.waiting.length >= MAX_WAITING)
      throw new AppError('RATE_LIMITED', 'The dashboard is running as many searches as it may; try again in a moment.', {
        retryAfterMs: 1_000,
      });
    this.users.set(user, mine + 1);
    try {
      if (this.running >= this.perProcess) await new Promise<void>((resolve) => this.waiting.push(resolve));
      else this.running++;
      try {
        return await step();
      } finally {
        // Hand the slot straight to the next waiter, or free it.
        const next = this.waiting.shift();
        if (next) next();
        else this.running--;
      }
    } finally {
      const left = (this.users.get(user) ?? 1) - 1;
      if (left > 0) this.users.set(user, left);
      else this.users.delete(user);
    }
  }
}
