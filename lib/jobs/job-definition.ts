import type { z } from 'zod';
import type { HandlerMap, JobHandler } from '../runtime/handler';
import type { PriorityName } from './priority';

export interface BackoffDefault {
  /** `exponential` is full jitter, capped at one hour; `fixed` waits `delayMs` each time. */
  type: 'exponential' | 'fixed';
  delayMs: number;
}

/**
 * One job type, declared once: its name, payload schema, defaults and handler. The
 * runtime and the dashboard are built from a table of these (`createBullpen({ jobs })`)
 * and know no type of their own (docs/guide.md).
 *
 * `D` is what the application hands its handlers (its stores); the runtime only
 * passes it through.
 */
export interface JobDefinition<N extends string = string, S extends z.ZodType = z.ZodType, D = never> {
  /** The queue's name and the job's name; letters, digits, `.`, `_` and `-`. */
  name: N;
  /** The dashboard groups queues by it. */
  group: string;
  description: string;
  /** Validates every dispatch, replay and schedule; its defaults fill the handler's payload. */
  schema: S;
  /**
   * One valid payload, as a producer would send it: the benchmark seeds the type's queue
   * with it and docs/handlers.md shows it. The table is refused when it does not fit
   * `schema`.
   */
  example: z.input<S>;
  attempts: number;
  backoff: BackoffDefault;
  /** Per-attempt limit; the runtime aborts the handler's signal when it passes. */
  timeoutMs: number;
  /** @defaultValue 'MEDIUM' */
  priority?: PriorityName;
  /** Jobs of this type one worker process runs at once. @defaultValue 1 */
  concurrency?: number;
  /** BullMQ limiter: at most `max` jobs per `durationMs` across all workers. */
  rateLimit?: { max: number; durationMs: number };
  /** A final failure of this type raises an alert (docs/requirements.md#background-workers: critical types). @defaultValue false */
  critical?: boolean;
  /**
   * A job of this type that an operator cancels while it runs gets a dead letter, so it
   * can be replayed from the dead-letters page; without it a cancel leaves only the failed
   * job, marked with who cancelled it (docs/guide.md, "Cancel"). @defaultValue false
   */
  deadLetterOnCancel?: boolean;
  /**
   * The type destroys data (a tenant's deletion): from the dashboard only an admin may
   * add, duplicate, retry or replay one, after typing the tenant's org id; bulk retries
   * and replays leave it alone (docs/security.md, "Destructive job types"). @defaultValue false
   */
  destructive?: boolean;
  /**
   * Payload fields that name another resource: an edit-and-replay may not change them
   * (nor the tenant's orgId/workspaceId, locked for every type; lib/jobs/locked-fields.ts).
   * A job added from the dashboard may name one only when the resource belongs to the
   * job's tenant; a field whose resource has no owner (see `resourceKinds`) only an
   * admin may fill in.
   */
  resourceFields?: readonly string[];
  /**
   * What a resource field names, for the kinds whose owner the runtime knows (`webhook`:
   * lib/webhooks, by its `orgId`), e.g. `{ webhookId: 'webhook' }`. Fields not listed
   * name resources without an owner.
   */
  resourceKinds?: Readonly<Record<string, OwnedResourceKind>>;
  /**
   * One line about a completed job's return value, shown beside "completed" in the
   * dashboard, with `partial` set when the job finished but some of its work did not
   * (failed batches, items refused): the operator sees that the job did not simply
   * succeed. Called with whatever the job returned, possibly from an older build, so it
   * must check the shape it reads; undefined shows nothing.
   */
  summarize?: (result: unknown) => JobOutcome | undefined;
  /**
   * Builds the handler once per worker process from the application's stores. A type
   * without one can still be shown, but is not dispatched: nobody here would run it.
   */
  handler?: (deps: D) => JobHandler<z.output<S>>;
}

/** Resource kinds with an owner org in the runtime's own stores. */
export type OwnedResourceKind = 'webhook';

/** What `summarize` says about a completed job. */
export interface JobOutcome {
  text: string;
  /** The job completed, but part of its work failed or was refused. */
  partial: boolean;
}

/** A definition of any name, schema and handler dependencies, as the runtime holds it. */
// biome-ignore lint/suspicious/noExplicitAny: the runtime never calls a handler factory with typed deps; the application does.
export type AnyJobDefinition = JobDefinition<string, z.ZodType, any>;

/** A table of job types: what `createBullpen({ jobs })` is handed. */
export type JobTable = readonly AnyJobDefinition[];

/** The names of a table's types. */
export type JobNameOf<T extends JobTable> = T[number]['name'];
/** What a dispatch of `K` accepts: the schema's input, defaults optional. */
export type JobInputOf<T extends JobTable, K extends string> =
  string extends JobNameOf<T> ? unknown : z.input<Extract<T[number], { name: K }>['schema']>;
/** The payload a handler of `K` receives: the schema's output, defaults filled in. */
export type JobPayloadOf<T extends JobTable, K extends string> =
  string extends JobNameOf<T> ? unknown : z.output<Extract<T[number], { name: K }>['schema']>;

/** Declares a job type; only an identity, so the name stays a literal type. */
export function defineJob<const N extends string, S extends z.ZodType, D = never>(def: JobDefinition<N, S, D>): JobDefinition<N, S, D> {
  return def;
}

/**
 * Each handled type's handler, built once from the application's dependencies: what a
 * worker process hands its WorkerPool.
 */
export function buildHandlers<T extends JobTable>(table: T, deps: HandlerDepsOf<T>): HandlerMap {
  const handlers: HandlerMap = {};
  for (const def of table) if (def.handler) handlers[def.name] = def.handler(deps);
  return handlers;
}

/** What a table's handler factories are built from (the application's stores). */
export type HandlerDepsOf<T extends JobTable> = Parameters<NonNullable<T[number]['handler']>>[0];
