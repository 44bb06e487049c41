import { HttpClient } from '@/lib/http/http-client';
import type { Logger } from '@/lib/logging/logger';
import { ExtractiveSynthesiser } from './extractive-synthesiser';
import { OpenAiSynthesiser } from './openai-synthesiser';
import type { ShippedSettings } from '../../../settings';
import type { Synthesiser } from './synthesiser';

/** The chat adapter when LLM_URL is set, else the local extractive synthesiser. */
export function createSynthesiser(
  config: Pick<ShippedSettings, 'LLM_URL' | 'LLM_API_KEY' | 'LLM_MODEL'>,
  opts: { client?: HttpClient; logger?: Logger } = {},
): Synthesiser {
  if (!config.LLM_URL) return new ExtractiveSynthesiser();
  return new OpenAiSynthesiser({
    url: config.LLM_URL,
    apiKey: config.LLM_API_KEY,
    model: config.LLM_MODEL,
    client: opts.client ?? new HttpClient({ logger: opts.logger }),
  });
}
