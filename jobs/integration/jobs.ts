import { SECOND, MINUTE } from '@/lib/jobs/durations';
import { defineJob } from '@/lib/jobs/job-definition';
import type { AppStores } from '../app-stores';
import { createWebhookDispatchHandler, WEBHOOK_DISPATCH_TIMEOUT_MS } from './webhook-dispatch';
import { createSlackSyncHandler } from './slack-sync';
import { webhookDispatchSchema, slackSyncSchema } from './schemas';

/** The integration group's job types (docs/requirements.md#background-workers). */
export const integrationJobs = [
  defineJob({
    name: 'webhook-dispatch',
    group: 'integration',
    description: 'POST a signed event to a registered webhook and record the delivery.',
    schema: webhookDispatchSchema,
    example: { webhookId: 'wh-1', event: 'order.created', payload: { orderId: 1, total: 42 } },
    attempts: 10,
    backoff: { type: 'exponential', delayMs: 1 * SECOND },
    timeoutMs: WEBHOOK_DISPATCH_TIMEOUT_MS,
    priority: 'HIGH',
    concurrency: 20,
    critical: true,
    resourceFields: ['webhookId', 'deliveryId'],
    resourceKinds: { webhookId: 'webhook' },
    handler: (stores: AppStores) => createWebhookDispatchHandler(stores),
  }),
  defineJob({
    name: 'slack-sync',
    group: 'integration',
    description: 'Pull new Slack channel messages into memories and post summaries.',
    schema: slackSyncSchema,
    example: { channelId: 'C0123ABCD' },
    attempts: 5,
    backoff: { type: 'exponential', delayMs: 5 * SECOND },
    timeoutMs: 2 * MINUTE,
    priority: 'MEDIUM',
    concurrency: 2,
    // Slack's Web API allows roughly one call per second per method for most tiers.
    rateLimit: { max: 50, durationMs: MINUTE },
    critical: false,
    resourceFields: ['channelId'],
    handler: (stores: AppStores) => createSlackSyncHandler(stores),
  }),
] as const;
