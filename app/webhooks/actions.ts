'use server';

import { z } from 'zod';
import { runAction, type ActionSpec } from '@/dashboard/action';
import type { ActionResult } from '@/dashboard/client/action-result';
import {
  MAX_WEBHOOK_REPLAYS,
  reenableWebhook,
  replayWebhookDeadLetters,
  sendTestEvent,
  type Reenabled,
  type WebhookReplays,
} from '@/dashboard/webhooks/webhook-operations';
import { webhookIdSchema } from '@/lib/webhooks/webhook-schema';

/*
 * Mending a webhook, each through runAction: authorise (operators) → safeParse → lib →
 * audit → revalidate. A viewer's direct POST gets 403 and changes nothing.
 */

const idOnly = z.object({ id: webhookIdSchema }).strict();
const replaySchema = z.object({ id: webhookIdSchema, limit: z.number().int().min(1).max(MAX_WEBHOOK_REPLAYS) }).strict();
const paths = (id: string) => ['/webhooks', `/webhooks/${encodeURIComponent(id)}`];

const enableSpec: ActionSpec<typeof idOnly, Reenabled> = {
  name: 'webhook.enable',
  minRole: 'operator',
  schema: idOnly,
  run: (input, { bullpen }) => reenableWebhook(bullpen, input.id),
  audit: (input, d) => ({ target: { kind: 'webhook', id: input.id }, details: { before: d.before, failureWindowReset: true } }),
  revalidate: (input) => paths(input.id),
};

const testSpec: ActionSpec<typeof idOnly, { jobId: string; deliveryId: string }> = {
  name: 'webhook.test',
  minRole: 'operator',
  schema: idOnly,
  run: (input, { bullpen, user }) => sendTestEvent(bullpen, input.id, user.username),
  audit: (input, d) => ({ target: { kind: 'webhook', id: input.id }, details: { jobId: d.jobId } }),
  revalidate: (input) => paths(input.id),
};

const replaySpec: ActionSpec<typeof replaySchema, WebhookReplays> = {
  name: 'webhook.replay-dead-letters',
  minRole: 'operator',
  schema: replaySchema,
  run: (input, { bullpen, user }) => replayWebhookDeadLetters(bullpen, input.id, { by: user.username, limit: input.limit }),
  audit: (input, d) => ({
    target: { kind: 'webhook', id: input.id },
    details: {
      limit: input.limit,
      replayed: d.replayed.map((r) => r.id),
      refused: d.refused.map((r) => ({ id: r.id, code: r.code })),
      scanned: d.scanned,
    },
  }),
  revalidate: (input) => [...paths(input.id), '/dead-letters'],
};

export async function enableWebhook(input: unknown): Promise<ActionResult<Reenabled>> {
  return runAction(enableSpec, input);
}

export async function sendWebhookTest(input: unknown): Promise<ActionResult<{ jobId: string; deliveryId: string }>> {
  return runAction(testSpec, input);
}

export async function replayWebhookPending(input: unknown): Promise<ActionResult<WebhookReplays>> {
  return runAction(replaySpec, input);
}
