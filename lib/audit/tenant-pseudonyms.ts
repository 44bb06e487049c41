import { createHmac } from 'node:crypto';
import type { RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';
import type { Tenant } from '../jobs/tenant';

/**
 * Stable pseudonyms for tenant ids in the audit (docs/decisions/0010-audit-outlives-tenants.md).
 * An audit entry stores `p-<HMAC-SHA256(secret, orgId)>` (and one for the workspace)
 * instead of the ids; a map from pseudonym to id, kept per organisation, lets pages and
 * exports show the ids while the tenant exists. Deleting the tenant deletes its map: the
 * entries stay, linked to each other by the same pseudonym, and nothing left names the
 * tenant. The secret (AUDIT_PSEUDONYM_SECRET, or a file under the data directory) keeps
 * a pseudonym from being reversed by hashing guessed ids.
 */
export class TenantPseudonyms {
  private secret?: Promise<string>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
    private readonly resolveSecret: () => Promise<string>,
  ) {}

  /** The pseudonymous tenant, with no write: for matching, and for a record that must not keep the name. */
  async peek(tenant: Tenant): Promise<Tenant> {
    const key = await this.key();
    const orgId = pseudonym(key, 'org', tenant.orgId);
    return tenant.workspaceId ? { orgId, workspaceId: pseudonym(key, 'ws', `${tenant.orgId}/${tenant.workspaceId}`) } : { orgId };
  }

  /** The pseudonymous tenant, remembering its ids so pages can show them until the tenant is deleted. */
  async of(tenant: Tenant): Promise<Tenant> {
    const p = await this.peek(tenant);
    const names: Record<string, string> = { [p.orgId]: tenant.orgId };
    if (p.workspaceId && tenant.workspaceId) names[p.workspaceId] = tenant.workspaceId;
    await this.redis.hset(this.namesKey(p.orgId), names);
    return p;
  }

  /** The ids behind pseudonymous tenants still known; a deleted tenant's stay pseudonyms. */
  async reveal(tenants: Array<Tenant | undefined>): Promise<Array<Tenant | undefined>> {
    const orgs = [...new Set(tenants.filter((t): t is Tenant => !!t).map((t) => t.orgId))];
    const pipeline = this.redis.pipeline();
    for (const org of orgs) pipeline.hgetall(this.namesKey(org));
    const maps = new Map<string, Record<string, string>>();
    const results = orgs.length ? ((await pipeline.exec()) ?? []) : [];
    orgs.forEach((org, i) => {
      maps.set(org, (results[i]?.[1] as Record<string, string> | undefined) ?? {});
    });
    return tenants.map((t) => {
      if (!t) return t;
      const names = maps.get(t.orgId) ?? {};
      const orgId = names[t.orgId] ?? t.orgId;
      const workspaceId = t.workspaceId ? (names[t.workspaceId] ?? t.workspaceId) : undefined;
      return workspaceId ? { orgId, workspaceId } : { orgId };
    });
  }

  /** How many ids of `tenant` the map still holds (what a deletion must bring to zero). */
  async count(tenant: Tenant): Promise<number> {
    const p = await this.peek(tenant);
    if (!p.workspaceId) return this.redis.hlen(this.namesKey(p.orgId));
    return this.redis.hexists(this.namesKey(p.orgId), p.workspaceId);
  }

  /** Forgets the ids of `tenant` (an organisation with its workspaces, or one workspace); returns how many. */
  async forget(tenant: Tenant): Promise<number> {
    const p = await this.peek(tenant);
    if (!p.workspaceId) {
      const n = await this.redis.hlen(this.namesKey(p.orgId));
      await this.redis.del(this.namesKey(p.orgId));
      return n;
    }
    return this.redis.hdel(this.namesKey(p.orgId), p.workspaceId);
  }

  private namesKey(orgPseudonym: string): string {
    return this.keys.tagged('audit', 'tenant-names', orgPseudonym);
  }

  private key(): Promise<string> {
    this.secret ??= this.resolveSecret().catch((err: unknown) => {
      this.secret = undefined;
      throw err;
    });
    return this.secret;
  }
}

/** `p-` and 22 base64url characters (132 bits of the HMAC): a valid tenant id part, never a real id's shape by accident. */
function pseudonym(secret: string, kind: 'org' | 'ws', id: string): string {
  return `p-${createHmac('sha256', secret).update(`${kind}:${id}`).digest('base64url').slice(0, 22)}`;
}
