import { z } from 'zod';
import { MINUTE, SECOND } from '@/lib/jobs/durations';
import type { JobCatalog } from '@/lib/jobs/job-catalog';
import { PRIORITY_NAMES, type PriorityName } from '@/lib/jobs/priority';
import { tenantIdPart, type Tenant } from '@/lib/jobs/tenant';
import { MAX_PAYLOAD_TEXT, payloadToText } from './dead-letters-payload';

/**
 * The queue page's "Add a job" form as pure parts: what it posts, the rules each field
 * follows, how a valid post becomes the dispatcher's options, and the form's starting
 * values. Only zod and the job table's types: safe to bundle for the client, which
 * reads the units and limits from here.
 */

/** The units the delay is typed in, in milliseconds. */
export const DELAY_UNITS = { seconds: SECOND, minutes: MINUTE } as const;
export type DelayUnit = keyof typeof DELAY_UNITS;
export const DELAY_UNIT_NAMES = Object.keys(DELAY_UNITS) as DelayUnit[];

/**
 * The longest delay the form sets: one day. A job meant to run later than that is a
 * schedule's work, and a mistyped unit should not park a job for months.
 */
export const MAX_ADD_DELAY_MS = 24 * 60 * MINUTE;

/** An empty text field is "not given": the form posts every field, filled or not. */
const blankIsUnset = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/** The fields the form posts, each checked on its own; `addJobRequestSchema` adds the rules across fields. */
export const addJobFields = z.object({
  /** The queue (the job type) the job is added to. */
  queue: z.string().min(1).max(64),
  /** The payload as JSON text, checked against the type's schema by the dispatcher. */
  payload: z.string().max(MAX_PAYLOAD_TEXT, `The JSON is longer than ${MAX_PAYLOAD_TEXT.toLocaleString('en')} characters`),
  /** Unset: the type's default priority. */
  priority: z.preprocess(blankIsUnset, z.enum(PRIORITY_NAMES as [PriorityName, ...PriorityName[]]).optional()),
  /** Unset or 0: the job is waiting at once. */
  delay: z.preprocess(blankIsUnset, z.coerce.number().int('A whole number').min(0, 'At least 0').optional()),
  delayUnit: z.enum(DELAY_UNIT_NAMES as [DelayUnit, ...DelayUnit[]]).default('seconds'),
  /** Who the job works for; unset: no tenant (types that need one say so in their schema). */
  orgId: z.preprocess(blankIsUnset, tenantIdPart.optional()),
  workspaceId: z.preprocess(blankIsUnset, tenantIdPart.optional()),
  /** A destructive type's typed confirmation: the org id it acts on (dashboard/jobs/job-start-rules.ts). */
  confirm: z.preprocess(blankIsUnset, z.string().max(200).optional()),
});

/** The rules across fields: the delay's bound in its unit, and a workspace only within an organisation. */
export function refineAddJob(
  v: { delay?: number; delayUnit: DelayUnit; orgId?: string; workspaceId?: string },
  ctx: z.RefinementCtx,
): void {
  if (v.delay !== undefined && v.delay * DELAY_UNITS[v.delayUnit] > MAX_ADD_DELAY_MS) {
    ctx.addIssue({
      code: 'custom',
      path: ['delay'],
      message: `At most ${maxDelayIn(v.delayUnit).toLocaleString('en')} ${v.delayUnit} (one day)`,
    });
  }
  if (v.workspaceId !== undefined && v.orgId === undefined) {
    ctx.addIssue({ code: 'custom', path: ['orgId'], message: 'A workspace belongs to an organisation: give its orgId too' });
  }
}

export const addJobRequestSchema = addJobFields.strict().superRefine(refineAddJob);
export type AddJobRequest = z.input<typeof addJobRequestSchema>;
export type AddJobFields = z.output<typeof addJobRequestSchema>;

/** The largest delay the form accepts, in `unit`. */
export function maxDelayIn(unit: DelayUnit): number {
  return Math.floor(MAX_ADD_DELAY_MS / DELAY_UNITS[unit]);
}

/** The dispatcher's options for a valid post: only what was given, so an unset priority keeps the type's own. */
export function toDispatchOptions(f: AddJobFields): { priority?: PriorityName; delayMs?: number; tenant?: Tenant } {
  const delayMs = (f.delay ?? 0) * DELAY_UNITS[f.delayUnit];
  return {
    ...(f.priority ? { priority: f.priority } : {}),
    ...(delayMs > 0 ? { delayMs } : {}),
    ...(f.orgId ? { tenant: { orgId: f.orgId, ...(f.workspaceId ? { workspaceId: f.workspaceId } : {}) } } : {}),
  };
}

/** A job added from the form, as the result and the audit report it (never its payload). */
export interface AddedJob {
  jobId: string;
  queue: string;
  priority: PriorityName;
  delayMs: number;
  tenant?: Tenant;
}

/** What the form starts from, computed on the server where the job table is. */
export interface AddJobDefaults {
  /** The type's schema defaults as pretty JSON (what `{}` parses to), or `{}` when the schema needs fields. */
  payload: string;
  priority: PriorityName;
  /** False when this build has no handler for the type: the form says so instead of offering to add. */
  addable: boolean;
  /** The type destroys data: only an admin may add it, typing the org id it acts on. */
  destructive: boolean;
}

/**
 * The form's starting values for `type`: its schema's defaults when an empty object
 * passes (and what it parses to passes again as JSON, so the starting text is valid
 * as it stands), else `{}` for the operator to fill in; the type's default priority.
 */
export function addJobDefaults(jobs: JobCatalog, type: string, addable: boolean): AddJobDefaults {
  const def = jobs.get(type);
  const parsed = def.schema.safeParse({});
  let payload = '{}';
  if (parsed.success) {
    try {
      const text = payloadToText(parsed.data);
      if (def.schema.safeParse(JSON.parse(text)).success) payload = text;
    } catch {
      // A default JSON cannot hold (a BigInt, a cycle): start from `{}`.
    }
  }
  return { payload, priority: def.priority, addable, destructive: def.destructive === true };
}
