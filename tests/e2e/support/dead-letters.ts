import { expect } from '@playwright/test';
import type { Bullpen } from '@/lib/bullpen';
import type { DeadLetterEntry } from '@/lib/dlq/entry';
import type { WebhookReceiver } from './webhook-receiver';

export interface FailedDelivery {
  webhookId: string;
  jobId: string;
  entry: DeadLetterEntry;
}

/**
 * A real final failure, the way production makes one: a webhook whose receiver
 * answers 4xx (set `receiver.answer` first) is not retried, so the worker fails the
 * job at once and writes its dead letter. Resolves once the entry is there.
 */
export async function failWebhookDelivery(
  bullpen: Bullpen,
  receiver: WebhookReceiver,
  event: string,
  payload: Record<string, unknown> = { e2e: true },
  opts: { deliveryId?: string } = {},
): Promise<FailedDelivery> {
  const webhook = await bullpen.webhooks.create({ url: receiver.url, description: `e2e ${event}` });
  const { jobId } = await bullpen.dispatcher.dispatch('webhook-dispatch', { webhookId: webhook.id, event, payload, ...opts });
  let entry: DeadLetterEntry | undefined;
  await expect
    .poll(async () => (entry = await bullpen.dlq.getByJob('webhook-dispatch', jobId))?.status, {
      message: `dead letter of webhook-dispatch job ${jobId}`,
      timeout: 30_000,
    })
    .toBe('pending');
  return { webhookId: webhook.id, jobId, entry: entry! };
}

/**
 * What a spec's failWebhookDelivery calls leave behind, removed (and the list emptied):
 * a dead letter still pending is discarded, the webhook deleted. Run after each test,
 * so the specs do not depend on their order.
 */
export async function cleanUpDeliveries(bullpen: Bullpen, failures: FailedDelivery[]): Promise<void> {
  for (const f of failures.splice(0)) {
    const entry = await bullpen.dlq.get(f.entry.id);
    if (entry?.status === 'pending') await bullpen.dlq.discard(entry.id, 'e2e-cleanup');
    await bullpen.webhooks.delete(f.webhookId);
  }
}

/**
 * A webhook a spec created, removed with what it left: its dead letters still pending
 * are discarded (a pending one keeps the health page degraded for the specs after it),
 * then the webhook is deleted.
 */
export async function removeWebhook(bullpen: Bullpen, webhookId: string): Promise<void> {
  for (const e of (await bullpen.dlq.list({ type: 'webhook-dispatch', status: 'pending' }, { limit: 200 })).entries) {
    if ((e.payload as { webhookId?: string }).webhookId === webhookId) await bullpen.dlq.discard(e.id, 'e2e-cleanup');
  }
  await bullpen.webhooks.delete(webhookId);
}
