import type { JobTypeName } from './registry';

/**
 * The job types whose handler ships in `worker/handlers/`. The dispatcher refuses the
 * others: a job nobody can run would only wait forever. A unit test keeps this list
 * equal to the worker's handler map.
 */
export const HANDLED_TYPES: readonly JobTypeName[] = [
  'webhook-dispatch',
  'trajectory-process',
  'pattern-training',
  'ewc-consolidation',
  'session-cleanup',
  'session-archive',
  'slack-sync',
  'quota-check',
  'audit-export',
  'data-export',
  'data-deletion',
  'memory-consolidation',
  'memory-cleanup',
  'memory-importance-decay',
  'embedding-batch',
  'embedding-reindex',
  'index-optimization',
  'index-rebalance',
];
