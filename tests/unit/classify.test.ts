import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ReplyError } from 'ioredis';
import MaxRetriesPerRequestError from 'ioredis/built/errors/MaxRetriesPerRequestError';
import { classifyError, isRedisUnavailable } from '@/lib/errors/classify';
import { HttpError } from '@/lib/errors/http-error';
import { PermanentError } from '@/lib/errors/permanent-error';
import { TimeoutError } from '@/lib/errors/timeout-error';

describe('error classification', () => {
  it.each([408, 425, 429, 500, 502, 503, 504])('HTTP %i retries', (status) => {
    expect(classifyError(new HttpError(status, 'x')).retryable).toBe(true);
  });

  it.each([400, 401, 403, 404, 409, 422])('HTTP %i does not retry', (status) => {
    expect(classifyError(new HttpError(status, 'x')).retryable).toBe(false);
  });

  it('network errors retry, by code or by cause', () => {
    expect(classifyError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toMatchObject({
      errorClass: 'network',
      retryable: true,
    });
    const fetchFailed = new TypeError('fetch failed', { cause: Object.assign(new Error(), { code: 'ECONNREFUSED' }) });
    expect(classifyError(fetchFailed)).toMatchObject({ errorClass: 'network', retryable: true });
  });

  it('a Redis that is restarting, failing over or loading is always transient, never permanent', () => {
    const unavailable = [
      new MaxRetriesPerRequestError(1),
      new Error('Connection is closed.'),
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
      new ReplyError('LOADING Redis is loading the dataset in memory'),
      new ReplyError("READONLY You can't write against a read only replica."),
      new ReplyError('CLUSTERDOWN The cluster is down'),
      new ReplyError('TRYAGAIN Multiple keys request during rehashing of slot'),
      new ReplyError('MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to no'),
      Object.assign(new Error('Failed to refresh slots cache.'), { name: 'ClusterAllFailedError' }),
    ];
    for (const err of unavailable) {
      expect(isRedisUnavailable(err)).toBe(true);
      expect(classifyError(err)).toMatchObject({ errorClass: 'network', retryable: true });
    }
    expect(isRedisUnavailable(new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value'))).toBe(false);
    expect(isRedisUnavailable(new Error('the LOADING dock is closed'))).toBe(false);
  });

  it('timeouts and aborts retry', () => {
    expect(classifyError(new TimeoutError(100))).toMatchObject({ errorClass: 'timeout', retryable: true });
    expect(classifyError(new DOMException('aborted', 'AbortError'))).toMatchObject({ errorClass: 'timeout' });
  });

  it('validation and explicit permanent errors do not retry', () => {
    const zodError = z.object({ a: z.string() }).safeParse({}).error!;
    expect(classifyError(zodError)).toMatchObject({ errorClass: 'validation', retryable: false });
    expect(classifyError(new PermanentError('no'))).toMatchObject({ errorClass: 'permanent', retryable: false });
    const unrecoverable = Object.assign(new Error('x'), { name: 'UnrecoverableError' });
    expect(classifyError(unrecoverable).retryable).toBe(false);
  });

  it('an unknown error retries: the attempt limit still bounds it', () => {
    expect(classifyError(new Error('boom'))).toMatchObject({ errorClass: 'unknown', retryable: true });
  });
});

describe('Bullpen’s own errors', () => {
  it('bad input is permanent; "try later" retries', async () => {
    const { AppError } = await import('@/lib/errors/app-error');
    expect(classifyError(new AppError('VALIDATION', 'x'))).toMatchObject({ errorClass: 'validation', retryable: false });
    expect(classifyError(new AppError('NOT_FOUND', 'x'))).toMatchObject({ errorClass: 'permanent', retryable: false });
    expect(classifyError(new AppError('CONFLICT', 'x'))).toMatchObject({ errorClass: 'conflict', retryable: true });
    expect(classifyError(new AppError('UNAVAILABLE', 'x')).retryable).toBe(true);
    expect(classifyError(new AppError('RATE_LIMITED', 'x')).retryable).toBe(true);
  });
});

/** A plain object shaped like an error, for the checks that go by name or code rather than class. */
function like(fields: Record<string, unknown>): unknown {
  return { message: '', ...fields };
}

describe('the whole classification, class by class (what the DLQ stores and filters)', () => {
  it('lists the error classes the DLQ filters by', async () => {
    const { ERROR_CLASSES } = await import('@/lib/errors/classify');
    expect(ERROR_CLASSES).toEqual([
      'network',
      'timeout',
      'rate_limit',
      'server',
      'client',
      'conflict',
      'validation',
      'permanent',
      'cancelled',
      'unknown',
    ]);
  });

  it('maps each of Bullpen’s own codes to its class and keeps the code', async () => {
    const { AppError } = await import('@/lib/errors/app-error');
    const cases = [
      ['RATE_LIMITED', 'rate_limit', true],
      ['UNAVAILABLE', 'network', true],
      ['CONFLICT', 'conflict', true],
      ['VALIDATION', 'validation', false],
      ['INVALID_SCHEDULE', 'validation', false],
      ['NOT_FOUND', 'permanent', false],
      ['FORBIDDEN', 'permanent', false],
    ] as const;
    for (const [code, errorClass, retryable] of cases) {
      expect(classifyError(new AppError(code, 'x'))).toEqual({ errorClass, retryable, code });
    }
  });

  it('gives each HTTP status its class and keeps the status', () => {
    const cases: Array<[number, string, boolean]> = [
      [429, 'rate_limit', true],
      [408, 'timeout', true],
      [425, 'server', true],
      [500, 'server', true],
      [502, 'server', true],
      [503, 'server', true],
      [504, 'server', true],
      // Other 5xx retry too: a server fault may pass.
      [501, 'server', true],
      [505, 'server', true],
      [599, 'server', true],
      [409, 'conflict', false],
      [400, 'client', false],
      [404, 'client', false],
      [499, 'client', false],
    ];
    for (const [status, errorClass, retryable] of cases) {
      expect(classifyError(new HttpError(status, 'x')), String(status)).toEqual({ errorClass, retryable, httpStatus: status });
    }
  });

  it('a ZodError is validation by its class or by its name, with its code if it has one', () => {
    expect(classifyError(like({ name: 'ZodError' }))).toEqual({ errorClass: 'validation', retryable: false, code: undefined });
    expect(classifyError(like({ name: 'ZodError', code: 'E_SHAPE' }))).toEqual({
      errorClass: 'validation',
      retryable: false,
      code: 'E_SHAPE',
    });
  });

  it('permanent by class or by name (BullMQ’s UnrecoverableError, a PermanentError from another copy)', () => {
    expect(classifyError(new PermanentError('no', 'GONE'))).toEqual({ errorClass: 'permanent', retryable: false, code: 'GONE' });
    expect(classifyError(like({ name: 'PermanentError' }))).toEqual({ errorClass: 'permanent', retryable: false, code: undefined });
    expect(classifyError(like({ name: 'UnrecoverableError' }))).toEqual({ errorClass: 'permanent', retryable: false, code: undefined });
  });

  it('a timeout keeps its code, ETIMEDOUT when it has none', () => {
    expect(classifyError(new TimeoutError(100))).toEqual({ errorClass: 'timeout', retryable: true, code: 'ETIMEDOUT' });
    expect(classifyError(like({ name: 'TimeoutError' }))).toEqual({ errorClass: 'timeout', retryable: true, code: 'ETIMEDOUT' });
    expect(classifyError(like({ name: 'AbortError', code: 'ABORT_ERR' }))).toEqual({
      errorClass: 'timeout',
      retryable: true,
      code: 'ABORT_ERR',
    });
    for (const code of ['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ABORT_ERR']) {
      expect(classifyError(like({ code })), code).toEqual({ errorClass: 'timeout', retryable: true, code });
    }
  });

  it('every network code retries as network, read from the error or its cause', () => {
    const codes = [
      'ECONNRESET',
      'ECONNREFUSED',
      'ECONNABORTED',
      'EPIPE',
      'EHOSTUNREACH',
      'ENETUNREACH',
      'ENETDOWN',
      'EAI_AGAIN',
      'ENOTFOUND',
      'UND_ERR_SOCKET',
      'UND_ERR_CONNECT_TIMEOUT',
      'UND_ERR_HEADERS_TIMEOUT',
      'UND_ERR_BODY_TIMEOUT',
      'UND_ERR_CLOSED',
    ];
    for (const code of codes) {
      expect(classifyError(like({ code })), code).toEqual({ errorClass: 'network', retryable: true, code });
      expect(classifyError(like({ cause: { code } })), `cause ${code}`).toEqual({ errorClass: 'network', retryable: true, code });
    }
    // A code that is not a string is no code: the cause's is read instead.
    expect(classifyError(like({ code: 104, cause: { code: 'ECONNRESET' } }))).toEqual({
      errorClass: 'network',
      retryable: true,
      code: 'ECONNRESET',
    });
    expect(classifyError(like({ cause: { code: 111 } }))).toEqual({ errorClass: 'unknown', retryable: true, code: undefined });
  });

  it('an unreachable Redis is network, code REDIS_UNAVAILABLE unless the error has one', () => {
    expect(classifyError(new Error('Connection is closed.'))).toEqual({
      errorClass: 'network',
      retryable: true,
      code: 'REDIS_UNAVAILABLE',
    });
    expect(classifyError(like({ message: 'Connection is closed.', code: 'ECLOSED' }))).toEqual({
      errorClass: 'network',
      retryable: true,
      code: 'ECLOSED',
    });
  });

  it('a failed fetch is network; another TypeError is not', () => {
    expect(classifyError(like({ name: 'FetchError' }))).toEqual({ errorClass: 'network', retryable: true, code: undefined });
    expect(classifyError(new TypeError('Fetch Failed'))).toEqual({ errorClass: 'network', retryable: true, code: undefined });
    expect(classifyError(new TypeError('x is not a function'))).toEqual({ errorClass: 'unknown', retryable: true, code: undefined });
    expect(classifyError(new Error('fetch failed'))).toEqual({ errorClass: 'unknown', retryable: true, code: undefined });
  });

  it('an unknown error keeps its code; a thrown non-error is unknown too', () => {
    expect(classifyError(like({ code: 'E_WEIRD' }))).toEqual({ errorClass: 'unknown', retryable: true, code: 'E_WEIRD' });
    expect(classifyError(null)).toEqual({ errorClass: 'unknown', retryable: true, code: undefined });
    expect(classifyError('a string')).toEqual({ errorClass: 'unknown', retryable: true, code: undefined });
  });
});

describe('isRedisUnavailable', () => {
  it('knows each message ioredis and Redis give, at the start of the message only', () => {
    const yes = [
      'Connection is closed.',
      "Stream isn't writeable and enableOfflineQueue options is false",
      'Reached the max retries per request limit (which is 20).',
      'Failed to refresh slots cache.',
      // A cluster command that kept meeting a closed connection while a replica took over.
      'Too many Cluster redirections. Last error: Error: Connection is closed.',
      'None of startup nodes is available',
      'Redis not ready after 5000 ms',
      'Redis connection closed before it was ready',
      'LOADING Redis is loading',
      'READONLY replica',
      'CLUSTERDOWN down',
      'TRYAGAIN later',
      'MASTERDOWN link down',
      'MOVED 3999 127.0.0.1:6381',
      'ASK 3999 127.0.0.1:6381',
    ];
    for (const message of yes) expect(isRedisUnavailable(new Error(message)), message).toBe(true);
    const no = ['The Connection is closed.', 'a MOVED 3999 x', 'MOVED', 'LOADINGX y', 'ASKED 1 x', ''];
    for (const message of no) expect(isRedisUnavailable(new Error(message)), message).toBe(false);
  });

  it('knows the error names, and says no for nothing or a message that is not text', () => {
    expect(isRedisUnavailable(like({ name: 'MaxRetriesPerRequestError' }))).toBe(true);
    expect(isRedisUnavailable(like({ name: 'ClusterAllFailedError' }))).toBe(true);
    expect(isRedisUnavailable(like({ name: 'OtherError' }))).toBe(false);
    expect(isRedisUnavailable(null)).toBe(false);
    expect(isRedisUnavailable(undefined)).toBe(false);
    expect(isRedisUnavailable({ name: 42, message: ['Connection is closed.'] })).toBe(false);
  });
});
