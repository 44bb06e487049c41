/** What the list holds of an attempt: its job's id and its place in the list. */
export interface ListedAttempt {
  readonly jobId: string;
  /** Its neighbours in its list. */
  runningPrev?: ListedAttempt;
  runningNext?: ListedAttempt;
  /** Whether it is in a list now. */
  runningListed?: boolean;
}

/**
 * The attempts of one job type that this process runs now, oldest first: what an
 * operator's cancel finds (cancel-relay.ts), the heartbeat lists and a stop that runs out
 * of time names. A list threaded through the attempts rather than a Map by job id: a Map
 * whose entries come and go at every job replaces its table every few dozen jobs, and V8
 * links each replaced table to its successor (for iterators still walking it). Once a
 * full collection has moved one table to the old generation, every young collection keeps
 * each later table, and the attempts in it, alive and copies them: garbage that costs
 * collection time at every job (docs/benchmarks.md, "Where the runtime's time goes").
 * Finding one attempt walks the list, at most the type's concurrency, for a cancel only.
 */
export class RunningAttempts<A extends ListedAttempt = ListedAttempt> implements Iterable<A> {
  private head?: A;
  private tail?: A;
  private count = 0;

  /** Adds `attempt` at the end; nothing happens if it is in a list already. */
  add(attempt: A): void {
    if (attempt.runningListed) return;
    attempt.runningListed = true;
    attempt.runningPrev = this.tail;
    attempt.runningNext = undefined;
    if (this.tail) this.tail.runningNext = attempt;
    else this.head = attempt;
    this.tail = attempt;
    this.count++;
  }

  /** Takes `attempt` out; nothing happens if it is not in the list. */
  remove(attempt: A): void {
    if (!attempt.runningListed) return;
    const prev = attempt.runningPrev as A | undefined;
    const next = attempt.runningNext as A | undefined;
    if (prev) prev.runningNext = next;
    else this.head = next;
    if (next) next.runningPrev = prev;
    else this.tail = prev;
    attempt.runningPrev = attempt.runningNext = undefined;
    attempt.runningListed = false;
    this.count--;
  }

  /** The attempt of job `jobId`, if this list holds it. */
  find(jobId: string): A | undefined {
    for (let a = this.head; a; a = a.runningNext as A | undefined) if (a.jobId === jobId) return a;
    return undefined;
  }

  get size(): number {
    return this.count;
  }

  /** Oldest first. An attempt removed during the walk ends it: every reader copies the list at once. */
  *[Symbol.iterator](): Iterator<A> {
    for (let a = this.head; a; a = a.runningNext as A | undefined) yield a;
  }
}
