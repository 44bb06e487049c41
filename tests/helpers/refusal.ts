import { inspect } from 'node:util';
import { type AppError, isAppError } from '@/lib/errors/app-error';

/**
 * The AppError `work` was refused with. A promise that resolves, or one that rejects with
 * anything but an AppError, fails the test here and says what it got instead: every
 * refusal a caller sees is an AppError with a code (docs/dashboard-conventions.md).
 */
export async function refusal(work: Promise<unknown>): Promise<AppError> {
  const outcome = await work.then(
    (value: unknown) => ({ settled: 'resolved', value }) as const,
    (error: unknown) => ({ settled: 'rejected', error }) as const,
  );
  if (outcome.settled === 'resolved') throw new Error(`expected a refusal, got ${inspect(outcome.value, { depth: 2 })}`);
  if (!isAppError(outcome.error)) throw new Error(`expected an AppError, got ${inspect(outcome.error, { depth: 2 })}`);
  return outcome.error;
}
