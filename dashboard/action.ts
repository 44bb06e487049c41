import 'server-only';
import { revalidatePath } from 'next/cache';
import { forbidden, unstable_rethrow } from 'next/navigation';
import { headers } from 'next/headers';
import { z } from 'zod';
import type { Bullpen } from '@/lib/bullpen';
import { getBullpen } from '@/dashboard/dashboard-process';
import type { AuditInput } from '@/lib/audit/audit-log';
import type { Role } from '@/dashboard/auth/roles';
import type { User } from '@/dashboard/auth/user-store';
import { actionFailure } from '@/dashboard/action-failure';
import type { ActionResult } from '@/dashboard/client/action-result';
import { withTimeLimit } from '@/lib/health/time-limit';
import { guardedWrite } from '@/lib/redis/guarded-write';
import { liveCache, processScoped } from '@/dashboard/dashboard-process';
import { JobOperations } from '@/dashboard/jobs/job-operations';
import { BulkRunner } from '@/dashboard/live/bulk-runner';
import { QueueOperations } from '@/dashboard/queues/queue-operations';
import { QueueThroughput } from '@/dashboard/queues/queue-throughput';
import { authorize } from './auth/require-user';

/** The audit entry of a change that is done: written within this, or logged as missing. */
const AUDIT_BOUND_MS = 2_000;

/**
 * What an action's `run` is given: the signed-in user, the process's Bullpen and the
 * dashboard's operations on it. The one way an action reaches a service.
 */
export interface ActionContext {
  user: User;
  bullpen: Bullpen;
  queues: QueueOperations;
  jobs: JobOperations;
  throughput: QueueThroughput;
  /** Long operations that go on in the background (retry all, clean, replay all, purge). */
  bulk: BulkRunner;
}

type Operations = Omit<ActionContext, 'user' | 'bullpen'>;

/** The operations, made once per process: each is a stateless wrapper over the Bullpen. */
function operations(): Operations {
  return processScoped('action-operations', (b) => ({
    queues: new QueueOperations(b),
    jobs: new JobOperations(b),
    throughput: new QueueThroughput(b),
    bulk: new BulkRunner(b.redis, b.keys, b.logger, b.audit),
  }));
}

export interface ActionSpec<S extends z.ZodType, T> {
  /** The audit action, `noun.verb`: `queue.pause`, `job.retry`, ... */
  name: string;
  /** The least role allowed to run it. */
  minRole: Role;
  schema: S;
  run(input: z.output<S>, ctx: ActionContext): Promise<T>;
  /**
   * The audit entry's target and details; every mutation writes one. `'lib'` when the
   * lib/ service called by `run` writes the entry itself (schedules do), so it is not
   * written twice.
   */
  audit: ((input: z.output<S>, data: T) => Pick<AuditInput, 'target' | 'tenant' | 'details'>) | 'lib';
  /** Paths whose server-rendered data the action changed. */
  revalidate?(input: z.output<S>, data: T): string[];
}

/**
 * The one way a dashboard mutation runs: authorise (401/403 as real statuses) →
 * refuse cross-site requests → zod safeParse (typed field errors) → call lib/ behind
 * the health gate and within a bound (lib/redis/guarded-write.ts) →
 * audit as the signed-in user → revalidate → a typed result. Call it from an
 * exported async function in a segment's actions.ts:
 *
 * ```ts
 * export async function pauseQueue(input: unknown) { return runAction(pauseSpec, input); }
 * ```
 */
export async function runAction<S extends z.ZodType, T>(spec: ActionSpec<S, T>, raw: unknown): Promise<ActionResult<T>> {
  const user = await authorize(spec.minRole);
  // Next compares Origin with Host already; a browser-labelled cross-site request is refused here too.
  if ((await headers()).get('sec-fetch-site') === 'cross-site') forbidden();
  const parsed = spec.schema.safeParse(raw instanceof FormData ? formDataToObject(raw) : raw);
  if (!parsed.success) {
    return {
      ok: false,
      code: 'VALIDATION',
      message: parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; '),
      fieldErrors: z.flattenError(parsed.error).fieldErrors as Record<string, string[]>,
    };
  }
  const bullpen = getBullpen();
  let data: T;
  try {
    // Sent only to a Redis that answers now, and bounded: a change is never applied long
    // after the operator was told it failed (docs/decisions/0006-connection-roles.md).
    const ctx: ActionContext = { user, bullpen, ...operations() };
    data = await guardedWrite(bullpen.redis, () => spec.run(parsed.data, ctx), { what: `the action ${spec.name}` });
  } catch (err) {
    unstable_rethrow(err);
    return actionFailure(err, spec.name, bullpen.logger, { user: user.username });
  }
  try {
    if (spec.audit !== 'lib') {
      const entry = { actor: user.username, action: spec.name, ...spec.audit(parsed.data, data) };
      await withTimeLimit(bullpen.audit.append(entry), AUDIT_BOUND_MS, 'the audit entry');
    }
  } catch (err) {
    // The change is done and cannot be undone here; make the missing entry loud.
    bullpen.logger.error({ err, action: spec.name, user: user.username }, 'audit entry could not be written');
  }
  liveCache().invalidate('live:');
  for (const p of spec.revalidate?.(parsed.data, data) ?? []) revalidatePath(p);
  return { ok: true, data };
}

/** FormData → object; a name given several times (checkboxes) becomes an array. */
export function formDataToObject(form: FormData): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of new Set(form.keys())) {
    if (key.startsWith('$ACTION')) continue;
    const all = form.getAll(key).filter((v): v is string => typeof v === 'string');
    out[key] = all.length > 1 ? all : all[0];
  }
  return out;
}
