import { describe, expect, it } from 'vitest';
import { actionFailure } from '@/dashboard/action-failure';
import { AppError } from '@/lib/errors/app-error';
import type { Logger } from '@/lib/logging/logger';

function recordingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = { error: (fields: Record<string, unknown>) => lines.push(fields) } as unknown as Logger;
  return { logger, lines };
}

describe('actionFailure', () => {
  it('keeps an AppError’s code, message and field errors for the user', () => {
    const { logger, lines } = recordingLogger();
    const r = actionFailure(new AppError('CONFLICT', 'Job 7 is running', { fieldErrors: { id: ['busy'] } }), 'job.remove', logger);
    expect(r).toEqual({ ok: false, code: 'CONFLICT', message: 'Job 7 is running', fieldErrors: { id: ['busy'] } });
    expect(lines).toEqual([]);
  });

  it('shows an unexpected error only as a reference, and logs the error under it', () => {
    const { logger, lines } = recordingLogger();
    const err = new Error('connect ECONNREFUSED 10.1.2.3:6379 at /srv/app/node_modules/ioredis');
    const r = actionFailure(err, 'queue.pause', logger, { user: 'olivia' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.code).toBe('INTERNAL');
    expect(r.ref).toMatch(/^[0-9a-f]{8}$/);
    expect(r.message).toContain(r.ref);
    expect(r.message).not.toMatch(/ECONNREFUSED|10\.1\.2\.3|node_modules/);
    expect(lines).toEqual([{ err, ref: r.ref, action: 'queue.pause', user: 'olivia' }]);
  });
});
