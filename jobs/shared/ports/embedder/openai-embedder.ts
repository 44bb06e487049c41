import { z } from 'zod';
import { PermanentError } from '@/lib/errors/permanent-error';
import type { HttpClient } from '@/lib/http/http-client';
import { l2normalize } from '../../../embedding/vectors/vector-math';
import type { Embedder } from './embedder';
import { openAiEndpoint } from './openai-endpoint';

export interface OpenAiEmbedderOptions {
  /** EMBEDDINGS_URL: the API root, `.../v1` or the full `/v1/embeddings` endpoint. */
  url: string;
  /** EMBEDDINGS_API_KEY, sent as a bearer token when set. */
  apiKey?: string;
  /** EMBEDDINGS_MODEL. */
  model: string;
  /** The runtime's HTTP client: retries, request ids and time limits come from it. */
  client: HttpClient;
  /**
   * Limit of one HTTP attempt; a batch of 32 long texts can take a while.
   * @defaultValue 30000
   */
  timeoutMs?: number;
}

const responseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()).min(1) })).min(1),
});

/**
 * An OpenAI-compatible `/v1/embeddings` adapter (OpenAI, Azure-style gateways, vLLM,
 * Ollama, LM Studio, ...). Vectors are re-normalised, since not every server does it.
 * Retries (429, 5xx, network) happen inside the HTTP client; a malformed answer is a
 * permanent error, as asking again would get the same one.
 */
export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  readonly maxBatchSize = 32;
  private readonly endpoint: string;

  constructor(private readonly opts: OpenAiEmbedderOptions) {
    this.model = opts.model;
    this.endpoint = openAiEndpoint(opts.url, 'embeddings');
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    if (texts.length > this.maxBatchSize) {
      throw new Error(`At most ${this.maxBatchSize} texts per call, got ${texts.length}`);
    }
    const res = await this.opts.client.request(this.endpoint, {
      json: { model: this.opts.model, input: texts, encoding_format: 'float' },
      headers: this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {},
      signal,
      operation: 'embeddings',
      policy: { timeoutMs: this.opts.timeoutMs ?? 30_000 },
    });
    const parsed = responseSchema.safeParse(res.json);
    if (!parsed.success) {
      throw new PermanentError(`The embeddings endpoint answered an unexpected body: ${z.prettifyError(parsed.error)}`, 'BAD_RESPONSE');
    }
    const byIndex = [...parsed.data.data].sort((a, b) => a.index - b.index);
    if (byIndex.length !== texts.length || byIndex.some((d, i) => d.index !== i)) {
      throw new PermanentError(`The embeddings endpoint returned ${byIndex.length} vectors for ${texts.length} texts`, 'BAD_RESPONSE');
    }
    const dims = byIndex[0].embedding.length;
    if (byIndex.some((d) => d.embedding.length !== dims)) {
      throw new PermanentError('The embeddings endpoint returned vectors of different lengths', 'BAD_RESPONSE');
    }
    return byIndex.map((d) => l2normalize(Float32Array.from(d.embedding)));
  }
}
