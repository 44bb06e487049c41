import { z } from 'zod';
import { AppError } from '../errors/app-error';
import { classifyError } from '../errors/classify';
import { PermanentError } from '../errors/permanent-error';
import { readyClient, type RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';
import { shouldRetry } from '../retry/retry-policy';
import { BEGIN, COMPLETE, FAIL } from './idempotency-scripts';
import { IdempotencyInProgressError } from './in-progress-error';

export const IDEMPOTENCY_STATUSES = ['processing', 'completed', 'failed'] as const;
export type IdempotencyStatus = (typeof IDEMPOTENCY_STATUSES)[number];

export interface IdempotencyRecord {
  key: string;
  status: IdempotencyStatus;
  requestHash: string;
  /** The stored outcome, once completed. */
  response?: unknown;
  error?: string;
  /** For a failed record: whether the failure released the key for another attempt. */
  retryable?: boolean;
  /** While processing: when the holder's lock lapses and another caller may take over. */
  lockUntil?: number;
  /** How many callers have started the operation under this key. */
  attempts: number;
  createdAt: number;
  updatedAt: number;
}

export type BeginResult =
  /** The caller holds the key now and must call complete() or fail(). */
  | { state: 'started'; takeover: boolean; attempts: number }
  /** Done before: do not repeat, return the stored response. */
  | { state: 'completed'; response: unknown }
  /** Someone else holds an unexpired lock. */
  | { state: 'in-progress'; lockUntil: number }
  /** Failed for good before (a non-retryable fail()). */
  | { state: 'failed'; error: string };

export interface IdempotencyStoreOptions {
  /**
   * How long a record lives after its last change; a key reused after that runs again.
   * @defaultValue 24 h
   */
  ttlMs?: number;
  /**
   * How long a started operation holds its key; past it, a crashed holder's key may be
   * taken over. Set it above the operation's own time limit.
   * @defaultValue 60 s
   */
  lockMs?: number;
}

const keySchema = z.string().min(1, 'an idempotency key must not be empty').max(512, 'an idempotency key holds at most 512 characters');
const hashSchema = z.string().min(1, 'a request hash must not be empty').max(128);
const msSchema = z.number().int().positive();
const ownerSchema = z.string().max(600);
/** A stored response larger than this is refused: the store holds outcomes, not payloads. */
export const MAX_RESPONSE_BYTES = 256 * 1024;

/**
 * Idempotency records in Redis (docs/requirements.md#retry-idempotency-and-dead-letters): processing, completed or
 * failed, with the request's hash and the stored response, kept for a TTL. A retried or
 * replayed operation asks `begin()` first and gets the stored outcome instead of running
 * the effect again. Callers build keys as `<domain>:<userId>:<entityId>:<operation>:<version>`
 * (lib/jobs/idempotency-key.ts) or another stable, unique form.
 */
export class IdempotencyStore {
  private readonly ttlMs: number;
  private readonly lockMs: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
    opts: IdempotencyStoreOptions = {},
  ) {
    this.ttlMs = parse(msSchema, opts.ttlMs ?? 24 * 3_600_000, 'ttlMs');
    this.lockMs = parse(msSchema, opts.lockMs ?? 60_000, 'lockMs');
  }

  /**
   * Claims `key` for the request hashed as `requestHash`, atomically. The same key with
   * a different hash is a caller bug (one key, two requests) and throws AppError CONFLICT.
   *
   * `owner` names what holds the lock when only one run of it can be alive at a time, a
   * job (BullMQ runs a job again only once its own lock has lapsed): a holder with the
   * caller's owner died without a word, and the caller takes the key over at once
   * (`takeover: true`) instead of waiting `lockMs` for it to lapse.
   */
  async begin(key: string, requestHash: string, opts: { lockMs?: number; owner?: string } = {}): Promise<BeginResult> {
    const k = this.recordKey(key);
    const hash = parse(hashSchema, requestHash, 'request hash');
    const lockMs = parse(msSchema, opts.lockMs ?? this.lockMs, 'lockMs');
    const owner = parse(ownerSchema, opts.owner ?? '', 'owner');
    const [state, a, b] = (await BEGIN.run(await this.client(), [k], [hash, lockMs, this.ttlMs, owner])) as string[];
    switch (state) {
      case 'started':
        return { state, takeover: a === '1', attempts: Number(b) };
      case 'completed':
        return { state, response: JSON.parse(a) as unknown };
      case 'in-progress':
        return { state, lockUntil: Number(a) };
      case 'failed':
        return { state, error: a };
      case 'conflict':
        throw new AppError('CONFLICT', `Idempotency key "${key}" was used before for a different request`, {
          key,
          requestHash: hash,
          storedHash: a,
        });
      default:
        throw new Error(`Unexpected idempotency state "${state}"`);
    }
  }

  /** Stores the outcome; later begin() calls return it. The first stored outcome stays. */
  async complete(key: string, response: unknown): Promise<void> {
    const k = this.recordKey(key);
    const json = JSON.stringify(response ?? null);
    if (Buffer.byteLength(json) > MAX_RESPONSE_BYTES) {
      throw new AppError('VALIDATION', `An idempotent response holds at most ${MAX_RESPONSE_BYTES} bytes of JSON`, { key });
    }
    const done = (await COMPLETE.run(await this.client(), [k], [json, this.ttlMs])) as number;
    if (done === 0) throw missing(key);
  }

  /**
   * Records a failure. A retryable one releases the key (the next begin() starts again);
   * a permanent one is kept, and begin() answers `failed` until the TTL passes.
   */
  async fail(key: string, error: string, opts: { retryable: boolean }): Promise<void> {
    const k = this.recordKey(key);
    const message = String(error).slice(0, 2_000);
    const done = (await FAIL.run(await this.client(), [k], [message, opts.retryable ? '1' : '0', this.ttlMs])) as number;
    if (done === 0) throw missing(key);
  }

  /** The record under `key`, or undefined. */
  async get(key: string): Promise<IdempotencyRecord | undefined> {
    const h = await (await this.client()).hgetall(this.recordKey(key));
    if (!h.status) return undefined;
    return {
      key,
      status: h.status as IdempotencyStatus,
      requestHash: h.requestHash,
      response: h.response !== undefined ? (JSON.parse(h.response) as unknown) : undefined,
      error: h.error,
      retryable: h.retryable === undefined ? undefined : h.retryable === '1',
      lockUntil: h.lockUntil !== undefined ? Number(h.lockUntil) : undefined,
      attempts: Number(h.attempts ?? 0),
      createdAt: Number(h.createdAt),
      updatedAt: Number(h.updatedAt),
    };
  }

  /** Milliseconds the record under `key` still lives, or undefined when there is none. */
  async ttl(key: string): Promise<number | undefined> {
    const ms = await (await this.client()).pttl(this.recordKey(key));
    return ms >= 0 ? ms : undefined;
  }

  /**
   * Runs `fn` once per key: a completed key returns its stored response without running
   * it, a key held elsewhere throws IdempotencyInProgressError (retry later), a key that
   * failed for good throws PermanentError. A failure of `fn` is recorded as retryable when
   * `isRetryable` (default: withRetry's rule) says so, and rethrown.
   */
  async runOnce<R>(
    key: string,
    requestHash: string,
    fn: () => Promise<R>,
    opts: { lockMs?: number; isRetryable?: (err: unknown) => boolean } = {},
  ): Promise<{ response: R; replayed: boolean }> {
    const begun = await this.begin(key, requestHash, { lockMs: opts.lockMs });
    if (begun.state === 'completed') return { response: begun.response as R, replayed: true };
    if (begun.state === 'in-progress') throw new IdempotencyInProgressError(key, begun.lockUntil);
    if (begun.state === 'failed') {
      throw new PermanentError(`The operation for idempotency key "${key}" failed before: ${begun.error}`, 'IDEMPOTENT_FAILURE');
    }
    let response: R;
    try {
      response = await fn();
    } catch (err) {
      const retryable = (opts.isRetryable ?? ((e) => shouldRetry(classifyError(e))))(err);
      await this.fail(key, err instanceof Error ? err.message : String(err), { retryable });
      throw err;
    }
    await this.complete(key, response);
    return { response, replayed: false };
  }

  private recordKey(key: string): string {
    return this.keys.tagged('idem', parse(keySchema, key, 'idempotency key'));
  }

  private client(): Promise<RedisClient> {
    return readyClient(this.redis);
  }
}

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new AppError('VALIDATION', `Invalid ${what}: ${r.error.issues.map((i) => i.message).join('; ')}`);
  return r.data;
}

function missing(key: string): AppError {
  return new AppError('NOT_FOUND', `No idempotency record for "${key}": begin() was not called or the record expired`, { key });
}
