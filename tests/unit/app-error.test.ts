import { describe, expect, it } from 'vitest';
import { AppError, isAppError } from '@/lib/errors/app-error';

describe('isAppError', () => {
  it('knows an AppError made by another copy of its module (two chunks of one server bundle)', () => {
    expect(isAppError(new AppError('CONFLICT', 'refused'))).toBe(true);
    const foreign = Object.assign(new Error('Job 1 was not retried: its dead letter was already replayed'), {
      name: 'AppError',
      code: 'CONFLICT',
    });
    expect(isAppError(foreign)).toBe(true);
  });

  it('is not fooled by a name alone or an unknown code', () => {
    expect(isAppError(Object.assign(new Error('x'), { name: 'AppError' }))).toBe(false);
    expect(isAppError(Object.assign(new Error('x'), { name: 'AppError', code: 'NOPE' }))).toBe(false);
    expect(isAppError({ name: 'AppError', code: 'CONFLICT', message: 'plain object' })).toBe(false);
    expect(isAppError(new Error('plain'))).toBe(false);
  });
});
