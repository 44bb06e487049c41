import { SECOND, MINUTE, HOUR } from '@/lib/jobs/durations';
import { defineJob } from '@/lib/jobs/job-definition';
import type { AppStores } from '../app-stores';
import { createQuotaCheckHandler } from './quota-check';
import { createAuditExportHandler } from './audit-export';
import { createDataExportHandler } from './data-export';
import { createDataDeletionHandler } from './data-deletion';
import { quotaCheckSchema, auditExportSchema, dataExportSchema, dataDeletionSchema } from './schemas';

/** The maintenance group's job types (docs/requirements.md#background-workers). */
export const maintenanceJobs = [
  defineJob({
    name: 'quota-check',
    group: 'maintenance',
    description: 'Compare each tenant’s usage with its quotas; record and alert on violations.',
    schema: quotaCheckSchema,
    example: { orgId: 'acme' },
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 10 * SECOND },
    timeoutMs: 2 * MINUTE,
    priority: 'MEDIUM',
    concurrency: 1,
    critical: false,
    handler: (stores: AppStores) => createQuotaCheckHandler(stores),
  }),
  defineJob({
    name: 'audit-export',
    group: 'maintenance',
    description: 'Export a tenant’s audit stream to JSONL under .data/exports.',
    schema: auditExportSchema,
    example: { orgId: 'acme' },
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 30 * SECOND },
    timeoutMs: 30 * MINUTE,
    priority: 'LOW',
    concurrency: 1,
    critical: true,
    handler: (stores: AppStores) => createAuditExportHandler(stores),
  }),
  defineJob({
    name: 'data-export',
    group: 'maintenance',
    description: 'Export all of a tenant’s data to JSONL under .data/exports.',
    schema: dataExportSchema,
    example: { orgId: 'acme' },
    attempts: 3,
    backoff: { type: 'exponential', delayMs: 30 * SECOND },
    timeoutMs: 1 * HOUR,
    priority: 'LOW',
    concurrency: 1,
    critical: false,
    handler: (stores: AppStores) => createDataExportHandler(stores),
  }),
  defineJob({
    name: 'data-deletion',
    group: 'maintenance',
    description: 'Delete all of a tenant’s data in every store and verify none remains.',
    schema: dataDeletionSchema,
    example: { orgId: 'acme', reason: 'account closed' },
    attempts: 5,
    backoff: { type: 'exponential', delayMs: 30 * SECOND },
    timeoutMs: 1 * HOUR,
    priority: 'CRITICAL',
    concurrency: 1,
    critical: true,
    destructive: true,
    // A deletion cancelled half-way leaves part of the tenant's data: its dead letter is the reminder, and a replay finishes it.
    deadLetterOnCancel: true,
    handler: (stores: AppStores) => createDataDeletionHandler(stores),
  }),
] as const;
