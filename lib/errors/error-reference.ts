import { randomBytes } from 'node:crypto';

/**
 * A short id that ties what a user is shown to the server's log line: an unexpected
 * error's own text (a driver message, a stack, an internal address) stays in the log,
 * and the browser gets "reference 3f9a1c07" to quote.
 */
export function errorReference(): string {
  return randomBytes(4).toString('hex');
}
