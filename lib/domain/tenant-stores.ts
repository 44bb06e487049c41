import type { Bullpen } from '../bullpen';
import { DeadLetterTenantStore } from '../dlq/dead-letter-tenant-store';
import { QueuedJobsTenantStore } from '../jobs/tenant-jobs-store';
import { AuditStore } from './deletion/audit-store';
import { ExportFiles } from './exports/export-files';
import { TenantExporter } from './exports/tenant-exporter';
import { MemoryStore } from './memories/memory-store';
import { MemoryTenantStore } from './memories/memory-tenant-store';
import { PatternModelStore } from './patterns/pattern-model-store';
import { QuotaStore } from './quotas/quota-store';
import { UsageStore } from './quotas/usage-store';
import { ViolationStore } from './quotas/violation-store';
import { SessionArchive } from './sessions/session-archive';
import { SessionStore } from './sessions/session-store';
import type { TenantScopedStore } from './tenant-store';
import { SampleStore } from './trajectories/sample-store';
import { TrajectoryStore } from './trajectories/trajectory-store';
import { vectorServiceFor } from './vectors/vector-service';
import { VectorTenantStore } from './vectors/vector-tenant-store';
import { SlackSyncStateStore } from '../ports/slack/slack-sync-state';

/**
 * Every store that holds tenant data, in deletion order. data-deletion erases and
 * verifies each of them and data-export writes each but `exports` to a file, so a store
 * that holds tenant data and is not listed here would survive a deletion: add it here
 * (the deletion test counts every store of this list).
 */
export function tenantStores(bullpen: Bullpen): TenantScopedStore[] {
  const { redis, keys, config } = bullpen;
  const sessions = new SessionStore(redis, keys);
  return [
    // First, so no dead letter is replayed and no waiting job of the tenant runs and
    // writes records into the stores below after they were erased.
    new DeadLetterTenantStore(bullpen.dlq),
    new QueuedJobsTenantStore(bullpen.queues, { logger: bullpen.logger }),
    new MemoryTenantStore(new MemoryStore(redis, keys)),
    // The process's shared vector service, so its in-memory indexes hear of the deletions.
    new VectorTenantStore(vectorServiceFor(bullpen).store),
    sessions,
    new SessionArchive(redis, keys, sessions, SessionArchive.rootFor(config.dataDir)),
    new TrajectoryStore(redis, keys),
    new SampleStore(redis, keys),
    new PatternModelStore(redis, keys),
    new QuotaStore(redis, keys),
    new UsageStore(redis, keys),
    new ViolationStore(redis, keys),
    new SlackSyncStateStore(redis, keys),
    new AuditStore(bullpen.audit),
    new ExportFiles(TenantExporter.rootFor(config.dataDir)),
  ];
}

/** The stores a data export writes: all but the export files themselves. */
export function exportableStores(bullpen: Bullpen): TenantScopedStore[] {
  return tenantStores(bullpen).filter((s) => !(s instanceof ExportFiles));
}
