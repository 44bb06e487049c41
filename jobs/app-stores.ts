import type { Alerter } from '@/lib/alerts/alerter';
import type { AuditLog } from '@/lib/audit/audit-log';
import type { Bullpen } from '@/lib/bullpen';
import type { Config } from '@/lib/config';
import type { DeadLetterStore } from '@/lib/dlq/dead-letter-store';
import type { IdempotencyStore } from '@/lib/idempotency/idempotency-store';
import type { QueueRegistry } from '@/lib/jobs/queues';
import type { Logger } from '@/lib/logging/logger';
import type { WebhookStore } from '@/lib/webhooks/webhook-store';
import { EmbeddingFailureLog } from './embedding/vectors/embedding-failure-log';
import { VectorService } from './embedding/vectors/vector-service';
import { VectorStore } from './embedding/vectors/vector-store';
import { SlackSyncStateStore } from './integration/slack/slack-sync-state';
import type { ShippedSettings } from './settings';
import { PatternModelStore } from './learning/patterns/pattern-model-store';
import { SampleStore } from './learning/trajectories/sample-store';
import { TrajectoryStore } from './learning/trajectories/trajectory-store';
import { DeletionReceipts } from './maintenance/deletion/deletion-receipts';
import { TenantExporter } from './maintenance/exports/tenant-exporter';
import { QuotaStore } from './maintenance/quotas/quota-store';
import { UsageStore } from './maintenance/quotas/usage-store';
import { ViolationStore } from './maintenance/quotas/violation-store';
import { MemoryStore } from './memory/memories/memory-store';
import { createEmbedder } from './shared/ports/embedder/create-embedder';
import type { Embedder } from './shared/ports/embedder/embedder';
import { createSynthesiser } from './shared/ports/synthesiser/create-synthesiser';
import type { Synthesiser } from './shared/ports/synthesiser/synthesiser';
import { SessionArchiveStore } from './session/sessions/session-archive-store';
import { SessionStore } from './session/sessions/session-store';

/**
 * What the shipped application's handlers work on: its stores, its adapters and the few
 * runtime services a handler calls (the audit log, the webhook registry, idempotency
 * records, alerts). Built once per process by `createAppStores`, so every handler of a
 * process shares one vector index and one embedder. Handlers get this, not the Bullpen.
 */
export interface AppStores {
  config: Config;
  /** The application's own settings (jobs/settings.ts): its services' URLs and tokens. */
  settings: ShippedSettings;
  logger: Logger;
  alerter: Alerter;
  audit: AuditLog;
  webhooks: WebhookStore;
  idempotency: IdempotencyStore;
  /** Dead letters and queued jobs hold tenant data too (data-deletion and data-export walk them). */
  deadLetters: DeadLetterStore;
  queues: QueueRegistry;
  memories: MemoryStore;
  /** The durable vectors plus this process's in-memory index of each namespace. */
  vectors: VectorService;
  embeddingFailures: EmbeddingFailureLog;
  embedder: Embedder;
  synthesiser: Synthesiser;
  sessions: SessionStore;
  sessionArchive: SessionArchiveStore;
  trajectories: TrajectoryStore;
  samples: SampleStore;
  patternModels: PatternModelStore;
  quotas: QuotaStore;
  usage: UsageStore;
  violations: ViolationStore;
  slackStates: SlackSyncStateStore;
  exporter: TenantExporter;
  deletionReceipts: DeletionReceipts;
}

/** The shipped application's stores on one Bullpen's connection and key layout. */
export function createAppStores(bullpen: Bullpen, settings: ShippedSettings): AppStores {
  const { redis, keys, config, logger } = bullpen;
  const sessions = new SessionStore(redis, keys);
  return {
    config,
    settings,
    logger,
    alerter: bullpen.alerter,
    audit: bullpen.audit,
    webhooks: bullpen.webhooks,
    idempotency: bullpen.idempotency,
    deadLetters: bullpen.dlq,
    queues: bullpen.queues,
    memories: new MemoryStore(redis, keys),
    vectors: new VectorService(new VectorStore(redis, keys), { logger }),
    embeddingFailures: new EmbeddingFailureLog(redis, keys),
    embedder: createEmbedder(settings, { logger }),
    synthesiser: createSynthesiser(settings, { logger }),
    sessions,
    sessionArchive: new SessionArchiveStore(redis, keys, sessions, SessionArchiveStore.rootFor(config.dataDir)),
    trajectories: new TrajectoryStore(redis, keys),
    samples: new SampleStore(redis, keys),
    patternModels: new PatternModelStore(redis, keys),
    quotas: new QuotaStore(redis, keys),
    usage: new UsageStore(redis, keys),
    violations: new ViolationStore(redis, keys),
    slackStates: new SlackSyncStateStore(redis, keys),
    exporter: new TenantExporter(TenantExporter.rootFor(config.dataDir)),
    deletionReceipts: new DeletionReceipts(redis, keys),
  };
}
