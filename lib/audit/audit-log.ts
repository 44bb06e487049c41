import { z } from 'zod';
import type { RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';
import { tenantSchema, type Tenant } from '../jobs/tenant';

export const auditEntrySchema = z.object({
  id: z.string(),
  at: z.number().int(),
  /** Who: a dashboard user name, `system`, `cli:<user>` or `job:<type>`. */
  actor: z.string().min(1).max(200),
  /** What, as `noun.verb`: `job.retry`, `dlq.replay`, `schedule.edit`, `memory.delete`, ... */
  action: z.string().min(1).max(100),
  target: z.object({ kind: z.string().min(1).max(50), id: z.string().max(500) }),
  tenant: tenantSchema.optional(),
  /** Small structured context; never secrets, never whole payloads. */
  details: z.record(z.string(), z.unknown()).optional(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;
export type AuditInput = Omit<AuditEntry, 'id' | 'at'> & { at?: number };

/**
 * One append-only audit stream (a Redis stream, newest read first) for operator
 * actions and tenant data events alike. Entries carry their tenant so audit-export and
 * data-deletion are exact. The stream is capped (approximately) so it cannot grow
 * without bound; exports are the long-term record.
 */
export class AuditLog {
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    keys: Keyspace,
    /** Approximate number of entries kept. @defaultValue 1_000_000 */
    private readonly maxLen = 1_000_000,
  ) {
    this.key = keys.tagged('audit', 'stream');
  }

  async append(input: AuditInput): Promise<string> {
    const at = input.at ?? Date.now();
    const entry = { ...input, at };
    const id = await this.redis.xadd(this.key, 'MAXLEN', '~', String(this.maxLen), '*', 'e', JSON.stringify(entry));
    return id as string;
  }

  /** Newest first; `before` is the id of the last entry of the previous page. */
  async page(opts: { limit?: number; before?: string } = {}): Promise<{ entries: AuditEntry[]; next?: string }> {
    const limit = Math.min(Math.max(opts.limit ?? 50, 1), 500);
    const end = opts.before ? `(${opts.before}` : '+';
    const rows = (await this.redis.xrevrange(this.key, end, '-', 'COUNT', limit + 1)) as Array<[string, string[]]>;
    const entries = rows.slice(0, limit).map(([id, fields]) => parseRow(id, fields));
    return { entries, next: rows.length > limit ? entries[entries.length - 1]?.id : undefined };
  }

  /** Oldest first, in batches, optionally only one tenant's entries. */
  async *scan(opts: { tenant?: Tenant; from?: number; to?: number; batch?: number } = {}): AsyncIterable<AuditEntry> {
    let start = opts.from !== undefined ? `${opts.from}-0` : '-';
    const end = opts.to !== undefined ? `${opts.to}-99999999` : '+';
    const batch = opts.batch ?? 500;
    for (;;) {
      const rows = (await this.redis.xrange(this.key, start, end, 'COUNT', batch)) as Array<[string, string[]]>;
      for (const [id, fields] of rows) {
        const entry = parseRow(id, fields);
        if (!opts.tenant || matchesTenant(entry.tenant, opts.tenant)) yield entry;
      }
      if (rows.length < batch) return;
      start = `(${rows[rows.length - 1][0]}`;
    }
  }

  /** Removes one tenant's entries (data deletion); returns how many. */
  async deleteByTenant(tenant: Tenant): Promise<number> {
    let removed = 0;
    const ids: string[] = [];
    for await (const e of this.scan({ tenant })) {
      ids.push(e.id);
      if (ids.length >= 500) removed += await this.redis.xdel(this.key, ...ids.splice(0));
    }
    if (ids.length) removed += await this.redis.xdel(this.key, ...ids);
    return removed;
  }

  async countByTenant(tenant: Tenant): Promise<number> {
    let n = 0;
    for await (const _ of this.scan({ tenant })) n++;
    return n;
  }
}

function matchesTenant(entry: Tenant | undefined, want: Tenant): boolean {
  if (!entry || entry.orgId !== want.orgId) return false;
  return want.workspaceId === undefined || entry.workspaceId === want.workspaceId;
}

function parseRow(id: string, fields: string[]): AuditEntry {
  const i = fields.indexOf('e');
  const raw = JSON.parse(fields[i + 1] ?? '{}') as Omit<AuditEntry, 'id'>;
  return { ...raw, id };
}
