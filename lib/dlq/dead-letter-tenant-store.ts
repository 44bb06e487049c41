import { tenantCovers } from '../jobs/tenant-key';
import type { TenantScopedStore } from '../jobs/tenant-scoped-store';
import type { Tenant } from '../jobs/tenant';
import type { DeadLetterStore } from './dead-letter-store';
import type { DeadLetterEntry } from './entry';
import { MAX_PAGE } from './filter';

export interface DeadLetterTenantStoreOptions {
  /** Entries per page of `list` while counting a workspace or exporting. @defaultValue 200 (the most `list` gives) */
  pageSize?: number;
  /** Written to the purge's log line. @defaultValue 'tenant-deletion' */
  actor?: string;
}

/**
 * The dead-letter queue as a tenant store: a failed job's entry keeps its payload and
 * its tenant, so deleting a tenant must remove its entries (and the failed jobs behind
 * them) too. The DLQ indexes entries per organisation, so an organisation's count is
 * one ZCOUNT; a workspace is narrowed entry by entry while paging that index.
 */
export class DeadLetterTenantStore implements TenantScopedStore {
  readonly name = 'dead-letters';
  private readonly pageSize: number;
  private readonly actor: string;

  constructor(
    private readonly dlq: DeadLetterStore,
    opts: DeadLetterTenantStoreOptions = {},
  ) {
    this.pageSize = opts.pageSize ?? MAX_PAGE;
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1 || this.pageSize > MAX_PAGE) {
      throw new Error(`The dead-letter page size must be an integer from 1 to ${MAX_PAGE}, got ${this.pageSize}`);
    }
    this.actor = opts.actor ?? 'tenant-deletion';
  }

  async countByTenant(tenant: Tenant): Promise<number> {
    if (tenant.workspaceId === undefined) return (await this.dlq.list({ tenant: tenant.orgId }, { limit: 1 })).total;
    let n = 0;
    for await (const entries of this.pages(tenant)) n += entries.length;
    return n;
  }

  async deleteByTenant(tenant: Tenant): Promise<number> {
    return this.dlq.purgeTenant(tenant, { by: this.actor, batchSize: this.pageSize });
  }

  async *exportByTenant(tenant: Tenant): AsyncIterable<Record<string, unknown>> {
    for await (const entries of this.pages(tenant)) {
      // Entries are parsed, plain JSON already (no Redis or BullMQ objects in them).
      for (const entry of entries) yield { ...entry };
    }
  }

  /** The tenant's entries, newest first, one page of the organisation's index at a time. */
  private async *pages(tenant: Tenant): AsyncGenerator<DeadLetterEntry[]> {
    let cursor: string | undefined;
    do {
      const page = await this.dlq.list({ tenant: tenant.orgId }, { limit: this.pageSize, cursor });
      const mine = page.entries.filter((e) => tenantCovers(tenant, e.tenant));
      if (mine.length) yield mine;
      cursor = page.nextCursor;
    } while (cursor);
  }
}
