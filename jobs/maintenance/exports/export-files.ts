import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { resolveInside } from '@/lib/fs/resolve-inside';
import type { Tenant } from '@/lib/jobs/tenant';
import { tenantCovers } from '@/lib/jobs/tenant-key';
import type { TenantScopedStore } from '@/lib/jobs/tenant-scoped-store';

/**
 * The export directories under `<dataDir>/exports/<orgId>/` as a tenant store: one
 * record per export (its manifest, or its progress file while unfinished). Exports are
 * copies of the tenant's data, so deleting the tenant deletes them too; data-export
 * leaves this store out (an export of exports would only nest copies).
 */
export class ExportFiles implements TenantScopedStore {
  readonly name = 'exports';

  constructor(
    /** `<dataDir>/exports`. */
    readonly root: string,
  ) {}

  async countByTenant(tenant: Tenant): Promise<number> {
    return (await this.matching(tenant)).length;
  }

  async *exportByTenant(tenant: Tenant): AsyncIterable<Record<string, unknown>> {
    for (const { meta } of await this.matching(tenant)) yield meta;
  }

  /**
   * Removes the tenant's export directories: the whole organisation directory for an
   * organisation, or the workspace's own exports.
   */
  async deleteByTenant(tenant: Tenant): Promise<number> {
    const found = await this.matching(tenant);
    if (!tenant.workspaceId) {
      await rm(resolveInside(this.root, tenant.orgId), { recursive: true, force: true });
      return found.length;
    }
    for (const { dir } of found) await rm(dir, { recursive: true, force: true });
    return found.length;
  }

  private async matching(tenant: Tenant): Promise<Array<{ dir: string; meta: Record<string, unknown> }>> {
    const orgDir = resolveInside(this.root, tenant.orgId);
    let names: string[];
    try {
      names = (await readdir(orgDir, { withFileTypes: true }))
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: Array<{ dir: string; meta: Record<string, unknown> }> = [];
    for (const name of names) {
      const dir = path.join(orgDir, name);
      const meta = (await readMeta(dir)) ?? { exportId: name, tenant: { orgId: tenant.orgId } };
      // A directory without either file (a crash before the first write) belongs to the organisation.
      if (tenantCovers(tenant, meta.tenant as Tenant | undefined)) out.push({ dir, meta });
    }
    return out;
  }
}

async function readMeta(dir: string): Promise<Record<string, unknown> | undefined> {
  for (const file of ['manifest.json', 'progress.json']) {
    try {
      return JSON.parse(await readFile(path.join(dir, file), 'utf8')) as Record<string, unknown>;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return undefined;
}
