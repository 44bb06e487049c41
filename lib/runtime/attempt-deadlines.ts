import { TimeoutError } from '../errors/timeout-error';

/** What the deadlines hold of an attempt: its place in the line, and how to stop it. */
export interface TimedAttempt {
  /** When its time runs out (performance.now() ms); undefined while it is not in a line. */
  deadline?: number;
  prev?: TimedAttempt;
  next?: TimedAttempt;
  abortWith(reason: TimeoutError): void;
}

/**
 * The time limit of one job type's running attempts, with one timer rather than one per
 * attempt. Every attempt of a type gets the same limit, so the order they start in is
 * the order their time runs out in: they wait in a line, an ended attempt leaves it
 * wherever it stands, and the one timer is set for the first in line. Beside a timer per
 * attempt this saves arming and clearing one at every job (and the timer object each
 * allocates), which at thousands of jobs a second was a cost of its own
 * (docs/benchmarks.md, "Where the runtime's time goes").
 */
export class AttemptDeadlines {
  private head?: TimedAttempt;
  private tail?: TimedAttempt;
  private timer?: NodeJS.Timeout;

  constructor(private readonly timeoutMs: number) {}

  /** Starts `attempt`'s time: it is stopped with a TimeoutError once `timeoutMs` have passed, unless it left first. */
  add(attempt: TimedAttempt): void {
    attempt.deadline = performance.now() + this.timeoutMs;
    attempt.next = undefined;
    attempt.prev = this.tail;
    if (this.tail) this.tail.next = attempt;
    else this.head = attempt;
    this.tail = attempt;
    // A timer set for an earlier deadline fires first and sets the next one itself.
    if (!this.timer) this.arm(attempt.deadline);
  }

  /** Takes `attempt` out of the line: it ended. Nothing happens if it is not in one. */
  remove(attempt: TimedAttempt): void {
    if (attempt.deadline === undefined) return;
    attempt.deadline = undefined;
    const { prev, next } = attempt;
    if (prev) prev.next = next;
    else this.head = next;
    if (next) next.prev = prev;
    else this.tail = prev;
    attempt.prev = attempt.next = undefined;
    // Nothing left to time: a pending timer would only keep the process up.
    if (!this.head && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /** Attempts in the line (tests). */
  get size(): number {
    let n = 0;
    for (let a = this.head; a; a = a.next) n++;
    return n;
  }

  private arm(deadline: number): void {
    // Timers count whole milliseconds on the event loop's clock, which may lag performance.now():
    // expire() checks each deadline against the real time and sets the timer again if early.
    this.timer = setTimeout(this.expire, Math.max(1, Math.ceil(deadline - performance.now())));
  }

  private readonly expire = (): void => {
    this.timer = undefined;
    const now = performance.now();
    while (this.head && (this.head.deadline as number) <= now) {
      const attempt = this.head;
      this.remove(attempt);
      attempt.abortWith(new TimeoutError(this.timeoutMs));
    }
    if (this.head && !this.timer) this.arm(this.head.deadline as number);
  };
}
