import { z } from 'zod';
import { isTenant, isTenantIdPart, tenantSchema, type Tenant } from './tenant';

/** The longest idempotency key a job carries. */
export const MAX_IDEMPOTENCY_KEY = 512;

/**
 * What BullMQ stores as a job's data: the typed payload plus what the runtime needs
 * around it. Keeping the payload apart means a handler's schema never has to allow
 * for the runtime's own fields.
 */
export const envelopeSchema = z.object({
  payload: z.unknown(),
  tenant: tenantSchema.optional(),
  idempotencyKey: z.string().min(1).max(MAX_IDEMPOTENCY_KEY).optional(),
  requestId: z.string().min(1).max(128),
  dispatchedAt: z.number().int(),
  /** Set when the job was enqueued by a DLQ replay: the entry it came from. */
  replayOf: z.string().optional(),
  /** Set on a DLQ replay: the id of the job the chain of replays started from. */
  originJobId: z.string().optional(),
  /**
   * Set when an operator edited the payload in a replay of this chain: that replay's job id.
   * The edit made a new request, so the runtime derived a new idempotency key from it, and
   * handlers that key side effects themselves (a webhook's delivery id) derive theirs from
   * it (lib/jobs/replay-identity.ts).
   */
  editedReplay: z.string().min(1).max(128).optional(),
  /** Set when a Job Scheduler enqueued it: the schedule's name. */
  schedule: z.string().optional(),
});
export type JobEnvelope = z.infer<typeof envelopeSchema>;

/** What the runtime reads of a BullMQ job to find its envelope. */
export interface JobLike {
  id?: string;
  name?: string;
  data: unknown;
  timestamp?: number;
  /** BullMQ keeps job options it does not know, so a producer may pass `tenant` there. */
  opts?: object;
}

export type ReadEnvelope = { envelope: JobEnvelope; bare: boolean } | { error: string };

/**
 * A job's data as the runtime reads it. Bullpen's own dispatches, replays and
 * schedules carry an envelope; a job from a plain BullMQ producer (another service,
 * another language; docs/producers.md) carries the bare payload, which is wrapped here:
 * its request id is the job's id, its dispatch time the job's timestamp, and its tenant
 * the job option `tenant` ({ orgId, workspaceId? }) or else the payload's own `orgId` /
 * `workspaceId`. Data shaped as an envelope but broken (a bad tenant, say) is an error,
 * not a payload: it came from Bullpen and something is wrong with it.
 */
export function readEnvelope(job: JobLike): ReadEnvelope {
  const d = job.data;
  if (looksLikeEnvelope(d)) {
    const e = d as Partial<JobEnvelope>;
    // The hot path: every field the runtime reads checked by hand, zod only for the message.
    if (
      typeof e.requestId === 'string' &&
      e.requestId.length > 0 &&
      typeof e.dispatchedAt === 'number' &&
      (e.tenant === undefined || isTenant(e.tenant)) &&
      (e.idempotencyKey === undefined || typeof e.idempotencyKey === 'string')
    ) {
      return { envelope: e as JobEnvelope, bare: false };
    }
    const parsed = envelopeSchema.safeParse(d);
    return parsed.success ? { envelope: parsed.data, bare: false } : { error: `Invalid job envelope: ${z.prettifyError(parsed.error)}` };
  }
  const tenant = tenantOfBareJob(job);
  return {
    envelope: {
      payload: d,
      requestId: `bullmq-${job.id ?? 'unknown'}`.slice(0, 128),
      dispatchedAt: job.timestamp ?? Date.now(),
      ...(tenant ? { tenant } : {}),
    },
    bare: true,
  };
}

/** An object with Bullpen's envelope fields: a payload beside a request id and a dispatch time. */
function looksLikeEnvelope(d: unknown): boolean {
  return d !== null && typeof d === 'object' && !Array.isArray(d) && 'payload' in d && 'requestId' in d && 'dispatchedAt' in d;
}

function tenantOfBareJob(job: JobLike): Tenant | undefined {
  const optTenant = (job.opts as { tenant?: unknown } | undefined)?.tenant;
  if (isTenant(optTenant)) return optTenant;
  const p = job.data as Record<string, unknown> | null;
  if (p === null || typeof p !== 'object' || !isTenantIdPart(p.orgId)) return undefined;
  return isTenantIdPart(p.workspaceId) ? { orgId: p.orgId, workspaceId: p.workspaceId } : { orgId: p.orgId };
}
