import { z } from 'zod';

export const webhookDispatchSchema = z.object({
  webhookId: z.string().min(1).max(128),
  event: z.string().min(1).max(128),
  payload: z.record(z.string(), z.unknown()),
  /** Stable across retries; default: derived from the job id. */
  deliveryId: z.string().min(1).max(128).optional(),
});

export const slackSyncSchema = z.object({
  channelId: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Z0-9]+$/i, 'a Slack channel id such as C0123ABCD'),
  /** Post a summary of the new messages back to the channel. */
  postSummary: z.boolean().default(false),
  limit: z.number().int().min(1).max(1_000).default(200),
});
