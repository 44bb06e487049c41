import 'server-only';
import type { Bullpen } from '@/lib/bullpen';
import { type Role, roleAtLeast } from '@/dashboard/auth/roles';
import { AppError } from '@/lib/errors/app-error';
import type { JobCatalog } from '@/lib/jobs/job-catalog';
import type { OwnedResourceKind } from '@/lib/jobs/job-definition';
import type { Tenant } from '@/lib/jobs/tenant';

/**
 * Who may start which job from the dashboard (docs/security.md, "Destructive job types"
 * and "Resources of a tenant"). The job table says which types destroy data and which
 * payload fields name a resource; these rules hold on every path that starts a job
 * from the dashboard (add, duplicate, retry, replay), whatever the browser sent.
 */

/** Who starts the job, and what they typed to confirm a destructive one. */
export interface Starter {
  role: Role;
  /** The typed confirmation: the tenant's org id (or, for a job with no tenant, the type's name). */
  confirm?: string;
}

/** What a destructive job's typed confirmation must say: the org it acts on, else the type's name. */
export function confirmationFor(type: string, tenant: Tenant | undefined, payload: unknown): string {
  return orgOf(tenant, payload) ?? type;
}

/**
 * What the dashboard asks an admin to type before starting a job of `type` again from
 * this tenant and payload (the org id, else the type's name); undefined when the type
 * destroys nothing and no confirmation is asked. The pages read it to show the field
 * only where checkDestructiveStart will want it.
 */
export function confirmationAsked(jobs: JobCatalog, type: string, tenant: Tenant | undefined, payload: unknown): string | undefined {
  return jobs.has(type) && jobs.get(type).destructive ? confirmationFor(type, tenant, payload) : undefined;
}

/** The job table's types that destroy data: a bulk replay leaves their dead letters alone. */
export function destructiveTypes(jobs: JobCatalog): string[] {
  return jobs.names.filter((n) => jobs.get(n).destructive);
}

/**
 * Refuses a destructive type unless an admin starts it and typed the org id it acts on
 * (FORBIDDEN for a lesser role; VALIDATION naming the `confirm` field for a missing or
 * wrong confirmation). A payload and a tenant that name different orgs are refused too:
 * the confirmation must name the one org the job touches.
 */
export function checkDestructiveStart(jobs: JobCatalog, type: string, tenant: Tenant | undefined, payload: unknown, who: Starter): void {
  if (!jobs.has(type) || !jobs.get(type).destructive) return;
  if (!roleAtLeast(who.role, 'admin')) {
    throw new AppError('FORBIDDEN', `${type} destroys data: only an admin may start it from the dashboard`, { type, destructive: true });
  }
  const payloadOrg = orgField(payload);
  if (tenant && payloadOrg !== undefined && tenant.orgId !== payloadOrg) {
    throw new AppError('VALIDATION', `The job's tenant is ${tenant.orgId} but its payload names ${payloadOrg}; nothing was started`);
  }
  const expected = confirmationFor(type, tenant, payload);
  if (who.confirm?.trim() !== expected) {
    const message = `Type ${expected} to confirm: ${type} destroys that tenant's data`;
    throw new AppError('VALIDATION', message, { fieldErrors: { confirm: [message] }, confirmation: expected });
  }
}

/**
 * Refuses a job whose payload names a resource of another tenant, or (for anyone but an
 * admin) a resource with no owner: a webhook without an orgId, or a field whose kind has
 * no owner in the runtime (a Slack channel, a vector namespace...). A resource that does
 * not exist is refused for everyone: its job could only fail.
 */
export async function checkResourceOwners(
  bullpen: Bullpen,
  type: string,
  tenant: Tenant | undefined,
  payload: unknown,
  role: Role,
): Promise<void> {
  const def = bullpen.jobs.get(type);
  const data = asRecord(payload);
  const org = orgOf(tenant, payload);
  for (const field of def.resourceFields ?? []) {
    const value = data[field];
    if (value === undefined || value === null) continue;
    const kind = def.resourceKinds?.[field];
    const owner = kind ? await ownerOf(bullpen, kind, value, field) : undefined;
    if (owner === undefined) {
      if (roleAtLeast(role, 'admin')) continue;
      const what = kind ? `${kind} ${String(value)} has no owner organisation yet` : `${field} names a resource without an owner`;
      throw fieldRefusal('FORBIDDEN', field, `${what}: only an admin may add a job that names it`);
    }
    if (owner !== org) {
      throw fieldRefusal(
        'FORBIDDEN',
        field,
        `${kind} ${String(value)} belongs to organisation ${owner}${org ? `, not ${org}` : '; give the job that tenant'}`,
      );
    }
  }
}

/** The owner org of one resource; undefined when it has none; VALIDATION when it does not exist. */
async function ownerOf(bullpen: Bullpen, kind: OwnedResourceKind, value: unknown, field: string): Promise<string | undefined> {
  switch (kind) {
    case 'webhook': {
      const hook = typeof value === 'string' ? await bullpen.webhooks.find(value).catch(() => undefined) : undefined;
      if (!hook) throw fieldRefusal('VALIDATION', field, `No webhook ${String(value)}`);
      return hook.orgId;
    }
  }
}

function fieldRefusal(code: 'FORBIDDEN' | 'VALIDATION', field: string, message: string): AppError {
  return new AppError(code, message, { issues: [{ path: [field], message }] });
}

function orgOf(tenant: Tenant | undefined, payload: unknown): string | undefined {
  return tenant?.orgId ?? orgField(payload);
}

function orgField(payload: unknown): string | undefined {
  const org = asRecord(payload).orgId;
  return typeof org === 'string' ? org : undefined;
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
