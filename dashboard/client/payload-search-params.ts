import { z } from 'zod';
import { tenantIdPart } from '@/lib/jobs/tenant';
import { jobStateSchema, type JobStateName } from './job-states';

/**
 * Payload search over a queue's state: the newest `SEARCH_WINDOW` jobs at most, read
 * `SEARCH_STEP` ids or `SEARCH_STEP_BYTES` of data per request, whichever comes first,
 * so the page can show progress and stop between steps.
 * Pure and client-safe: the page builds its requests with these.
 */
export const SEARCH_WINDOW = 10_000;
/** Ids one request examines at most. */
export const SEARCH_STEP = 1_000;
/**
 * Job data one request examines at most (the first job of a step always, whatever its
 * size): with 75 KB payloads a step reads ~110 jobs, so a step, and a cancel, ends within
 * tens of milliseconds whatever the payloads.
 */
export const SEARCH_STEP_BYTES = 8 * 1024 * 1024;
/** Matches a search collects before it stops. */
export const SEARCH_MAX_MATCHES = 50;
const TEXT_MAX = 200;
/** `a.b.c`: letters, digits, `_`, `-`; at most 10 segments; a number indexes an array. */
const PATH = /^[A-Za-z0-9_-]{1,64}(\.[A-Za-z0-9_-]{1,64}){0,9}$/;

/** One step's request, as it travels in the URL. */
export interface SearchStepParams {
  state: JobStateName;
  /** Substring of the job's data (JSON text). */
  q?: string;
  /** `path=value`, split. */
  path?: string;
  value?: string;
  /** The page's own filters, kept. */
  name?: string;
  tenant?: string;
  /** Ids of the state already examined (0 on the first step). */
  from: number;
}

const stepSchema = z
  .object({
    state: jobStateSchema,
    q: z.string().max(TEXT_MAX, `At most ${TEXT_MAX} characters`).optional(),
    match: z
      .string()
      .max(TEXT_MAX + 100)
      .regex(/^[^=]+=/, 'A path and a value, such as payload.event=memory.created')
      .optional(),
    name: z.string().trim().min(1).max(200).optional(),
    tenant: tenantIdPart.optional(),
    from: z.coerce.number().int().min(0).max(SEARCH_WINDOW).default(0),
  })
  .refine((p) => p.q || p.match, 'Give text to find or a path=value');

/** URL → step, or the rule it broke (the route answers 400 with it). Empty parameters count as absent. */
export function parseSearchStep(src: URLSearchParams): { ok: true; params: SearchStepParams } | { ok: false; message: string } {
  const raw = Object.fromEntries(['state', 'q', 'match', 'name', 'tenant', 'from'].flatMap((k) => (src.get(k) ? [[k, src.get(k)]] : [])));
  const parsed = stepSchema.safeParse(raw);
  if (!parsed.success)
    return { ok: false, message: parsed.error.issues.map((i) => `${i.path.join('.') || 'search'}: ${i.message}`).join('; ') };
  const { match, ...rest } = parsed.data;
  const out: SearchStepParams = { ...rest };
  if (match !== undefined) {
    const at = match.indexOf('=');
    const path = match.slice(0, at).trim();
    const value = match.slice(at + 1);
    if (!PATH.test(path)) return { ok: false, message: 'match: the path is names joined by dots, such as payload.user.id' };
    if (value.length > TEXT_MAX) return { ok: false, message: `match: the value has at most ${TEXT_MAX} characters` };
    out.path = path;
    out.value = value;
  }
  return { ok: true, params: out };
}

/** A step's query string (no `?`). */
export function serializeSearchStep(p: {
  state: string;
  q?: string;
  match?: string;
  name?: string;
  tenant?: string;
  from: number;
}): string {
  const s = new URLSearchParams({ state: p.state });
  if (p.q) s.set('q', p.q);
  if (p.match) s.set('match', p.match);
  if (p.name) s.set('name', p.name);
  if (p.tenant) s.set('tenant', p.tenant);
  s.set('from', String(p.from));
  return s.toString();
}
