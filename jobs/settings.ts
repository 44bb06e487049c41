import { z } from 'zod';

/**
 * The shipped application's own settings: the services its handlers call. Read from the
 * environment when a worker starts, beside the runtime's (lib/config.ts); names and
 * defaults as they always were, so deployments keep their variables.
 */
export const shippedSettingsSchema = z.object({
  /** An OpenAI-compatible embeddings API; unset: the local `lexical-hash-v1` embedder. */
  EMBEDDINGS_URL: z.url().optional(),
  EMBEDDINGS_API_KEY: z.string().optional(),
  EMBEDDINGS_MODEL: z.string().default('text-embedding-3-small'),
  /** An OpenAI-compatible chat API for summaries; unset: the local extractive synthesiser. */
  LLM_URL: z.url().optional(),
  LLM_API_KEY: z.string().optional(),
  LLM_MODEL: z.string().default('gpt-4o-mini'),
  /** slack-sync's bot token; unset, a slack-sync job fails for good saying so. */
  SLACK_TOKEN: z.string().optional(),
  SLACK_BASE_URL: z.url().default('https://slack.com/api'),
});

export type ShippedSettings = z.output<typeof shippedSettingsSchema>;
