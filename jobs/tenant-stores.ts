import { DeadLetterTenantStore } from '@/lib/dlq/dead-letter-tenant-store';
import { QueuedJobsTenantStore } from '@/lib/jobs/tenant-jobs-store';
import type { TenantScopedStore } from '@/lib/jobs/tenant-scoped-store';
import type { AppStores } from './app-stores';
import { VectorTenantStore } from './embedding/vectors/vector-tenant-store';
import { AuditStore } from './maintenance/deletion/audit-store';
import { ExportFiles } from './maintenance/exports/export-files';
import { TenantExporter } from './maintenance/exports/tenant-exporter';
import { MemoryTenantStore } from './memory/memories/memory-tenant-store';

/**
 * Every store that holds tenant data, in deletion order. data-deletion erases and
 * verifies each of them and data-export writes each but `exports` to a file, so a store
 * that holds tenant data and is not listed here would survive a deletion: add it here
 * (the deletion test counts every store of this list).
 */
export function tenantStores(stores: AppStores): TenantScopedStore[] {
  return [
    // First, so no dead letter is replayed and no waiting job of the tenant runs and
    // writes records into the stores below after they were erased.
    new DeadLetterTenantStore(stores.deadLetters),
    new QueuedJobsTenantStore(stores.queues, { exclude: ['data-deletion'], logger: stores.logger }),
    new MemoryTenantStore(stores.memories),
    // The process's shared vector service, so its in-memory indexes hear of the deletions.
    new VectorTenantStore(stores.vectors.store),
    stores.sessions,
    stores.sessionArchive,
    stores.trajectories,
    stores.samples,
    stores.patternModels,
    stores.quotas,
    stores.usage,
    stores.violations,
    stores.slackStates,
    new AuditStore(stores.audit),
    new ExportFiles(TenantExporter.rootFor(stores.config.dataDir)),
  ];
}

/** The stores a data export writes: all but the export files themselves. */
export function exportableStores(stores: AppStores): TenantScopedStore[] {
  return tenantStores(stores).filter((s) => !(s instanceof ExportFiles));
}
