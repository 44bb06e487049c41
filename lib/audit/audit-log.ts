import { z } from 'zod';
import type { RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';
import { tenantSchema, type Tenant } from '../jobs/tenant';
import type { TenantPseudonyms } from './tenant-pseudonyms';

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

/** How long the operators' audit keeps an entry. @defaultValue 400 days (AUDIT_RETENTION_DAYS) */
export const DEFAULT_AUDIT_RETENTION_MS = 400 * 24 * 3_600_000;

/**
 * One append-only audit stream (a Redis stream, newest read first): the operators'
 * record of what people, CLIs and jobs did. Entries carry their tenant so audit-export
 * is exact. Anonymous traffic never writes here (refused sign-ins have their own
 * aggregated stream, lib/audit/sign-in-failures.ts), so nobody without an account can
 * evict an entry. Retention is by time, not by count: each append trims entries older
 * than `retentionMs` (MINID), so an entry lives its full term however busy the
 * dashboard is; exports are the longer-term record (docs/security.md).
 */
export class AuditLog {
  private readonly key: string;
  readonly retentionMs: number;
  /** With them, entries store tenants as pseudonyms, shown by their ids until the tenant is deleted. */
  private readonly pseudonyms?: TenantPseudonyms;

  constructor(
    private readonly redis: RedisClient,
    keys: Keyspace,
    opts: { retentionMs?: number; pseudonyms?: TenantPseudonyms } = {},
  ) {
    this.key = keys.tagged('audit', 'stream');
    this.retentionMs = opts.retentionMs ?? DEFAULT_AUDIT_RETENTION_MS;
    this.pseudonyms = opts.pseudonyms;
    if (!(this.retentionMs > 0)) throw new RangeError('retentionMs must be > 0');
  }

  async append(input: AuditInput): Promise<string> {
    const at = input.at ?? Date.now();
    const tenant = input.tenant && this.pseudonyms ? await this.pseudonyms.of(input.tenant) : input.tenant;
    const entry = { ...input, ...(tenant ? { tenant } : {}), at };
    // Exact MINID: the ids are append times, so this drops exactly the entries past their term.
    const minId = Math.max(0, Date.now() - this.retentionMs);
    const id = await this.redis.xadd(this.key, 'MINID', String(minId), '*', 'e', JSON.stringify(entry));
    return id as string;
  }

  /** Newest first; `before` is the id of the last entry of the previous page. */
  async page(opts: { limit?: number; before?: string } = {}): Promise<{ entries: AuditEntry[]; next?: string }> {
    const limit = Math.min(Math.max(opts.limit ?? 50, 1), 500);
    const end = opts.before ? `(${opts.before}` : '+';
    const rows = (await this.redis.xrevrange(this.key, end, '-', 'COUNT', limit + 1)) as Array<[string, string[]]>;
    const entries = await this.revealed(rows.slice(0, limit).map(([id, fields]) => parseRow(id, fields)));
    return { entries, next: rows.length > limit ? entries[entries.length - 1]?.id : undefined };
  }

  /**
   * Newest first, only entries `match` accepts, within [from, to] (epoch ms; the stream
   * ids are the append times, so the window is a range read, not a filter). Reads at
   * most `maxScan` entries per call so a rare match cannot turn one page into a walk of
   * the whole stream: when the budget runs out first, `next` is where the next call
   * goes on from and `exhausted` is false.
   */
  async search(opts: {
    match: (e: AuditEntry) => boolean;
    limit?: number;
    before?: string;
    from?: number;
    to?: number;
    /** @defaultValue 10_000 */
    maxScan?: number;
  }): Promise<AuditSearchPage> {
    const limit = Math.min(Math.max(opts.limit ?? 50, 1), 500);
    const maxScan = Math.max(opts.maxScan ?? 10_000, limit);
    const start = opts.from !== undefined ? `${Math.max(0, Math.floor(opts.from))}-0` : '-';
    let end = opts.before ? `(${opts.before}` : opts.to !== undefined ? `${Math.floor(opts.to)}-18446744073709551615` : '+';
    if (opts.before && opts.to !== undefined && compareIds(opts.before, `${Math.floor(opts.to) + 1}-0`) > 0) {
      end = `${Math.floor(opts.to)}-18446744073709551615`;
    }
    const entries: AuditEntry[] = [];
    let scanned = 0;
    let lastId: string | undefined;
    while (scanned < maxScan) {
      const count = Math.min(500, maxScan - scanned);
      const rows = (await this.redis.xrevrange(this.key, end, start, 'COUNT', count)) as Array<[string, string[]]>;
      for (const [id, fields] of rows) {
        scanned++;
        lastId = id;
        const e = parseRow(id, fields);
        if (opts.match(e)) {
          if (entries.length === limit)
            return { entries: await this.revealed(entries), next: entries[limit - 1].id, scanned, exhausted: false };
          entries.push(e);
        }
      }
      if (rows.length < count) return { entries: await this.revealed(entries), scanned, exhausted: true };
      end = `(${lastId}`;
    }
    return { entries: await this.revealed(entries), next: lastId, scanned, exhausted: false };
  }

  /** The actors and actions of the newest `n` entries, most frequent first: the filter form's suggestions. */
  async recentFacets(n = 1000): Promise<{ actors: string[]; actions: string[] }> {
    const rows = (await this.redis.xrevrange(this.key, '+', '-', 'COUNT', n)) as Array<[string, string[]]>;
    const actors = new Map<string, number>();
    const actions = new Map<string, number>();
    for (const [id, fields] of rows) {
      const e = parseRow(id, fields);
      if (typeof e.actor === 'string') actors.set(e.actor, (actors.get(e.actor) ?? 0) + 1);
      if (typeof e.action === 'string') actions.set(e.action, (actions.get(e.action) ?? 0) + 1);
    }
    const byCount = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k]) => k);
    return { actors: byCount(actors).slice(0, 50), actions: byCount(actions).slice(0, 50) };
  }

  /**
   * Oldest first, in batches, optionally only one tenant's entries, which then carry
   * that tenant's ids (an entry written before pseudonyms, with the ids themselves,
   * matches too).
   */
  async *scan(opts: { tenant?: Tenant; from?: number; to?: number; batch?: number } = {}): AsyncIterable<AuditEntry> {
    const pseudo = opts.tenant && this.pseudonyms ? await this.pseudonyms.peek(opts.tenant) : undefined;
    let start = opts.from !== undefined ? `${opts.from}-0` : '-';
    const end = opts.to !== undefined ? `${opts.to}-99999999` : '+';
    const batch = opts.batch ?? 500;
    for (;;) {
      const rows = (await this.redis.xrange(this.key, start, end, 'COUNT', batch)) as Array<[string, string[]]>;
      for (const [id, fields] of rows) {
        const entry = parseRow(id, fields);
        if (!opts.tenant) yield entry;
        else if (matchesTenant(entry.tenant, opts.tenant)) yield entry;
        else if (pseudo && matchesTenant(entry.tenant, pseudo)) yield { ...entry, tenant: revealAs(entry.tenant, pseudo, opts.tenant) };
      }
      if (rows.length < batch) return;
      start = `(${rows[rows.length - 1][0]}`;
    }
  }

  /**
   * A tenant's deletion: the entries stay (they are the operators' record), and the ids
   * behind their pseudonyms are forgotten, so nothing left names the tenant
   * (docs/decisions/0010-audit-outlives-tenants.md). Returns how many ids were forgotten.
   */
  async forgetTenant(tenant: Tenant): Promise<number> {
    return this.pseudonyms ? this.pseudonyms.forget(tenant) : 0;
  }

  /** Ids of `tenant` the audit can still show (zero once the tenant is deleted). */
  async tenantNamesHeld(tenant: Tenant): Promise<number> {
    return this.pseudonyms ? this.pseudonyms.count(tenant) : 0;
  }

  /** The pseudonym an entry about `tenant` carries, written nowhere: for a record that must outlive it. */
  async pseudonymOf(tenant: Tenant): Promise<Tenant> {
    return this.pseudonyms ? this.pseudonyms.peek(tenant) : tenant;
  }

  private async revealed(entries: AuditEntry[]): Promise<AuditEntry[]> {
    if (!this.pseudonyms || !entries.some((e) => e.tenant)) return entries;
    const tenants = await this.pseudonyms.reveal(entries.map((e) => e.tenant));
    return entries.map((e, i) => (e.tenant ? { ...e, tenant: tenants[i] } : e));
  }
}

/** A matching entry's tenant with the caller's ids in place of the pseudonyms. */
function revealAs(entry: Tenant | undefined, pseudo: Tenant, real: Tenant): Tenant {
  const workspaceId = entry?.workspaceId === pseudo.workspaceId ? real.workspaceId : entry?.workspaceId;
  return workspaceId ? { orgId: real.orgId, workspaceId } : { orgId: real.orgId };
}

export interface AuditSearchPage {
  entries: AuditEntry[];
  /** The cursor to go on from (older), when there may be more. */
  next?: string;
  /** How many entries were read to fill this page. */
  scanned: number;
  /** True when the read reached the start of the window: there is nothing older to match. */
  exhausted: boolean;
}

/** Orders two stream ids (`ms-seq`). */
function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt);
  const [bm, bs] = b.split('-').map(BigInt);
  if (am !== bm) return am < bm ? -1 : 1;
  return as === bs ? 0 : as < bs ? -1 : 1;
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
