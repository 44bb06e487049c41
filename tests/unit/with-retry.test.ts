import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HttpError } from '@/lib/errors/http-error';
import { PermanentError } from '@/lib/errors/permanent-error';
import { TimeoutError } from '@/lib/errors/timeout-error';
import { DEFAULT_RETRY_POLICY, retryDelay, shouldRetry } from '@/lib/retry/retry-policy';
import { withRetry, type AttemptContext } from '@/lib/retry/with-retry';
import { classifyError } from '@/lib/errors/classify';

const netError = (code = 'ECONNRESET') => Object.assign(new Error(`socket ${code}`), { code });

/** A sleep that records the delays and returns at once. */
function recordingSleep() {
  const delays: number[] = [];
  return { delays, sleep: async (ms: number) => void delays.push(ms) };
}

/** fn that fails with `errors` in turn, then returns 'ok'. */
function failing(...errors: unknown[]) {
  const calls: AttemptContext[] = [];
  const fn = async (a: AttemptContext) => {
    calls.push(a);
    const e = errors[calls.length - 1];
    if (e !== undefined) throw e;
    return 'ok';
  };
  return { fn, calls };
}

describe('withRetry: which errors retry', () => {
  const retryable: Array<[string, unknown]> = [
    ['ECONNRESET', netError('ECONNRESET')],
    ['ECONNREFUSED', netError('ECONNREFUSED')],
    ['fetch failed', new TypeError('fetch failed')],
    ['a TimeoutError', new TimeoutError(10)],
    ['an AbortError', Object.assign(new Error('aborted'), { name: 'AbortError' })],
    ...[408, 425, 429, 500, 502, 503, 504].map((s): [string, unknown] => [`HTTP ${s}`, new HttpError(s, `HTTP ${s}`)]),
  ];
  it.each(retryable)('retries %s, then succeeds', async (_name, error) => {
    const { sleep, delays } = recordingSleep();
    const { fn, calls } = failing(error);
    await expect(withRetry('op', fn, { sleep })).resolves.toBe('ok');
    expect(calls.map((c) => c.attempt)).toEqual([1, 2]);
    expect(delays).toHaveLength(1);
  });

  const permanent: Array<[string, unknown]> = [
    ...[400, 401, 403, 404, 409, 410, 422, 501, 505].map((s): [string, unknown] => [`HTTP ${s}`, new HttpError(s, `HTTP ${s}`)]),
    ['a validation error', z.object({ a: z.string() }).safeParse({}).error],
    ['a PermanentError', new PermanentError('no')],
    ['an unknown error', new Error('something odd')],
  ];
  it.each(permanent)('does not retry %s and rethrows it unchanged', async (_name, error) => {
    const { sleep, delays } = recordingSleep();
    const { fn, calls } = failing(error, error);
    await expect(withRetry('op', fn, { sleep })).rejects.toBe(error);
    expect(calls).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('treats unknown errors as not retryable although the job runtime retries them', () => {
    const c = classifyError(new Error('odd'));
    expect(c).toMatchObject({ errorClass: 'unknown', retryable: true });
    expect(shouldRetry(c)).toBe(false);
  });

  it('stops after maxAttempts and throws the last error', async () => {
    const { sleep, delays } = recordingSleep();
    const errors = [netError(), netError(), netError('EPIPE')];
    const { fn, calls } = failing(...errors);
    await expect(withRetry('op', fn, { sleep })).rejects.toBe(errors[2]);
    expect(calls).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts);
    expect(delays).toHaveLength(2);
  });

  it('follows a custom classifier, still only for retryable classes', async () => {
    const { sleep } = recordingSleep();
    const odd = new Error('odd but transient');
    const a = failing(odd);
    await expect(withRetry('op', a.fn, { sleep, classify: () => ({ errorClass: 'network', retryable: true }) })).resolves.toBe('ok');
    const b = failing(odd);
    await expect(withRetry('op', b.fn, { sleep, classify: () => ({ errorClass: 'conflict', retryable: true }) })).rejects.toBe(odd);
    expect(b.calls).toHaveLength(1);
  });
});

describe('withRetry: delays', () => {
  it('draws full jitter below min(base * 2^(n-1), cap)', async () => {
    const { sleep, delays } = recordingSleep();
    const draws = [0.999, 0.5, 0, 0.999, 0.25];
    let i = 0;
    const { fn } = failing(...Array.from({ length: 5 }, () => netError()));
    await withRetry('op', fn, {
      sleep,
      random: () => draws[i++],
      policy: { maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 1_000 },
    });
    // Ceilings 100, 200, 400, 800, 1000 (capped).
    expect(delays).toEqual([99, 100, 0, 799, 250]);
  });

  it('stays inside the bounds with a real random source', async () => {
    const { sleep, delays } = recordingSleep();
    const { fn } = failing(...Array.from({ length: 9 }, () => netError()));
    await withRetry('op', fn, { sleep, policy: { maxAttempts: 10 } });
    delays.forEach((d, n) => {
      const ceiling = Math.min(250 * 2 ** n, 5_000);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThan(ceiling);
    });
  });

  it('waits the exponential ceiling itself when jitter is off', async () => {
    const { sleep, delays } = recordingSleep();
    const { fn } = failing(netError(), netError(), netError());
    await withRetry('op', fn, { sleep, policy: { maxAttempts: 4, jitter: false } });
    expect(delays).toEqual([250, 500, 1_000]);
  });

  it('honours Retry-After, capped by the policy cap', async () => {
    const { sleep, delays } = recordingSleep();
    const { fn } = failing(new HttpError(429, 'slow down', 3_000), new HttpError(503, 'busy', 60_000));
    await withRetry('op', fn, { sleep, random: () => 0 });
    expect(delays).toEqual([3_000, 5_000]);
  });

  it('never waits less than the jittered delay when Retry-After is shorter', () => {
    expect(retryDelay({ ...DEFAULT_RETRY_POLICY, jitter: false }, 3, 10)).toBe(1_000);
  });

  it('refuses an invalid policy with the rule', async () => {
    await expect(withRetry('op', async () => 1, { policy: { maxAttempts: 0 } })).rejects.toThrow(/maxAttempts/);
  });
});

describe('withRetry: signals', () => {
  it('aborts a slow attempt at its time limit with a TimeoutError, then retries', async () => {
    const seen: unknown[] = [];
    const { sleep } = recordingSleep();
    const result = await withRetry(
      'slow',
      async ({ signal, attempt }) => {
        if (attempt === 1) {
          await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
        }
        seen.push(signal.aborted);
        return attempt;
      },
      { sleep, policy: { timeoutMs: 30 } },
    );
    expect(result).toBe(2);
    expect(seen).toEqual([false]);
  });

  it('abandons an attempt that ignores its signal once the time limit passes', async () => {
    let signal: AbortSignal | undefined;
    const { sleep } = recordingSleep();
    const err = await withRetry(
      'stuck',
      (a) => {
        signal = a.signal;
        return new Promise(() => undefined);
      },
      { sleep, policy: { timeoutMs: 20, maxAttempts: 2 } },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(signal?.aborted).toBe(true);
    expect((signal?.reason as Error).message).toMatch(/stuck attempt timed out after 20 ms/);
  });

  it('stops at once, without retry, when the caller aborts during an attempt', async () => {
    const outer = new AbortController();
    let attempts = 0;
    const reason = new Error('job cancelled');
    const run = withRetry(
      'op',
      async ({ signal }) => {
        attempts++;
        setTimeout(() => outer.abort(reason), 5);
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
      { signal: outer.signal, policy: { maxAttempts: 5 } },
    );
    await expect(run).rejects.toBe(reason);
    expect(attempts).toBe(1);
  });

  it('stops during the wait between attempts when the caller aborts', async () => {
    const outer = new AbortController();
    let attempts = 0;
    const run = withRetry(
      'op',
      async () => {
        attempts++;
        setTimeout(() => outer.abort(new Error('shutdown')), 5);
        throw netError();
      },
      { signal: outer.signal, random: () => 0.99, policy: { baseDelayMs: 60_000, maxDelayMs: 60_000 } },
    );
    await expect(run).rejects.toThrow('shutdown');
    expect(attempts).toBe(1);
  });

  it('does not start when the caller already aborted', async () => {
    const outer = new AbortController();
    outer.abort(new Error('gone'));
    let attempts = 0;
    await expect(withRetry('op', async () => ++attempts, { signal: outer.signal })).rejects.toThrow('gone');
    expect(attempts).toBe(0);
  });
});

describe('withRetry: logs', () => {
  it('logs every attempt with the fields of docs/requirements.md', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    const { sleep } = recordingSleep();
    const { fn } = failing(new HttpError(503, 'busy'));
    await withRetry('billing.charge', fn, {
      sleep,
      logger,
      idempotencyKey: 'billing:u1:inv-7:charge:v1',
      logFields: { requestId: 'req-1' },
    });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      operation: 'billing.charge',
      attempt: 1,
      maxAttempts: 3,
      httpStatus: 503,
      retryable: true,
      idempotencyKey: 'billing:u1:inv-7:charge:v1',
      requestId: 'req-1',
    });
    expect(typeof lines[0].latencyMs).toBe('number');
    expect(lines[1]).toMatchObject({ operation: 'billing.charge', attempt: 2, maxAttempts: 3, retryable: false });
  });
});
