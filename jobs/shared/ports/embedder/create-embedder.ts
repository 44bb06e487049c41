import { HttpClient } from '@/lib/http/http-client';
import type { Logger } from '@/lib/logging/logger';
import type { ShippedSettings } from '../../../settings';
import type { Embedder } from './embedder';
import { LexicalHashEmbedder } from './lexical-hash-embedder';
import { OpenAiEmbedder } from './openai-embedder';

/**
 * The embedder the settings ask for: the OpenAI-compatible adapter when
 * EMBEDDINGS_URL is set, else the local `lexical-hash-v1`.
 */
export function createEmbedder(
  config: Pick<ShippedSettings, 'EMBEDDINGS_URL' | 'EMBEDDINGS_API_KEY' | 'EMBEDDINGS_MODEL'>,
  opts: { client?: HttpClient; logger?: Logger } = {},
): Embedder {
  if (!config.EMBEDDINGS_URL) return new LexicalHashEmbedder();
  return new OpenAiEmbedder({
    url: config.EMBEDDINGS_URL,
    apiKey: config.EMBEDDINGS_API_KEY,
    model: config.EMBEDDINGS_MODEL,
    client: opts.client ?? new HttpClient({ logger: opts.logger }),
  });
}
