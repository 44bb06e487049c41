import { z } from 'zod';
import { PermanentError } from '@/lib/errors/permanent-error';
import type { HttpClient } from '@/lib/http/http-client';
import { openAiEndpoint } from '../embedder/openai-endpoint';
import { CONSOLIDATION_PROMPT, type Synthesiser } from './synthesiser';

export interface OpenAiSynthesiserOptions {
  /** LLM_URL: the API root, `.../v1` or the full `/v1/chat/completions` endpoint. */
  url: string;
  /** LLM_API_KEY, sent as a bearer token when set. */
  apiKey?: string;
  /** LLM_MODEL. */
  model: string;
  client: HttpClient;
  /**
   * The required answer length.
   * @defaultValue 200
   */
  maxTokens?: number;
  /**
   * The required temperature: low, so the memory restates rather than invents.
   * @defaultValue 0.3
   */
  temperature?: number;
  /**
   * Limit of one HTTP attempt.
   * @defaultValue 60000
   */
  timeoutMs?: number;
}

const responseSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })).min(1),
});

/** An OpenAI-compatible chat-completions adapter that writes the semantic memory. */
export class OpenAiSynthesiser implements Synthesiser {
  readonly name: string;
  private readonly endpoint: string;

  constructor(private readonly opts: OpenAiSynthesiserOptions) {
    this.name = `chat:${opts.model}`;
    this.endpoint = openAiEndpoint(opts.url, 'chat/completions');
  }

  async synthesise(contents: readonly string[], signal?: AbortSignal): Promise<string> {
    if (contents.length === 0) throw new Error('Nothing to synthesise: the cluster is empty');
    const res = await this.opts.client.request(this.endpoint, {
      json: {
        model: this.opts.model,
        max_tokens: this.opts.maxTokens ?? 200,
        temperature: this.opts.temperature ?? 0.3,
        messages: [
          { role: 'system', content: CONSOLIDATION_PROMPT },
          { role: 'user', content: `Memories:\n${contents.map((c) => `- ${c.replace(/\s+/g, ' ').trim()}`).join('\n')}` },
        ],
      },
      headers: this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {},
      signal,
      operation: 'chat completion',
      policy: { timeoutMs: this.opts.timeoutMs ?? 60_000 },
    });
    const parsed = responseSchema.safeParse(res.json);
    const text = parsed.success ? parsed.data.choices[0].message.content?.trim() : undefined;
    if (!text) {
      throw new PermanentError('The chat endpoint answered without a message text', 'BAD_RESPONSE');
    }
    return text;
  }
}
