import type { HandlerMap } from '@/lib/runtime/handler';
import type { HandlerDeps } from './deps';
import { createWebhookDispatchHandler } from './webhook-dispatch';
import { createAuditExportHandler } from './audit-export';
import { createDataDeletionHandler } from './data-deletion';
import { createDataExportHandler } from './data-export';
import { createEwcConsolidationHandler } from './ewc-consolidation';
import { createPatternTrainingHandler } from './pattern-training';
import { createQuotaCheckHandler } from './quota-check';
import { createSessionArchiveHandler } from './session-archive';
import { createSessionCleanupHandler } from './session-cleanup';
import { createSlackSyncHandler } from './slack-sync';
import { createTrajectoryProcessHandler } from './trajectory-process';
import { createMemoryConsolidationHandler } from './memory-consolidation';
import { createMemoryCleanupHandler } from './memory-cleanup';
import { createMemoryImportanceDecayHandler } from './memory-importance-decay';
import { createEmbeddingBatchHandler } from './embedding-batch';
import { createEmbeddingReindexHandler } from './embedding-reindex';
import { createIndexOptimizationHandler } from './index-optimization';
import { createIndexRebalanceHandler } from './index-rebalance';

/**
 * Every handler this build ships, by job type. `lib/jobs/handled-types.ts` lists the
 * same types for the dispatcher; a unit test keeps the two equal.
 */
export function createHandlers(deps: HandlerDeps): HandlerMap {
  return {
    'webhook-dispatch': createWebhookDispatchHandler(deps),
    'trajectory-process': createTrajectoryProcessHandler(deps),
    'pattern-training': createPatternTrainingHandler(deps),
    'ewc-consolidation': createEwcConsolidationHandler(deps),
    'session-cleanup': createSessionCleanupHandler(deps),
    'session-archive': createSessionArchiveHandler(deps),
    'slack-sync': createSlackSyncHandler(deps),
    'quota-check': createQuotaCheckHandler(deps),
    'audit-export': createAuditExportHandler(deps),
    'data-export': createDataExportHandler(deps),
    'data-deletion': createDataDeletionHandler(deps),
    'memory-consolidation': createMemoryConsolidationHandler(deps),
    'memory-cleanup': createMemoryCleanupHandler(deps),
    'memory-importance-decay': createMemoryImportanceDecayHandler(deps),
    'embedding-batch': createEmbeddingBatchHandler(deps),
    'embedding-reindex': createEmbeddingReindexHandler(deps),
    'index-optimization': createIndexOptimizationHandler(deps),
    'index-rebalance': createIndexRebalanceHandler(deps),
  };
}
