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
