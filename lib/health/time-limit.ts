import { TimeoutError } from '../errors/timeout-error';

/**
 * Settles with `work`, or rejects with a TimeoutError after `ms`. The late outcome of
 * `work` is swallowed: a hung Redis answers (or fails) long after the probe moved on,
 * and that must not surface as an unhandled rejection.
 */
export function withTimeLimit<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(ms, what)), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
