import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { cosine, norm } from '@/jobs/embedding/vectors/vector-math';
import { HttpClient } from '@/lib/http/http-client';
import { createEmbedder } from '@/jobs/shared/ports/embedder/create-embedder';
import { chunk, embedAll, type Embedder } from '@/jobs/shared/ports/embedder/embedder';
import { LexicalHashEmbedder, tokenize } from '@/jobs/shared/ports/embedder/lexical-hash-embedder';
import { OpenAiEmbedder } from '@/jobs/shared/ports/embedder/openai-embedder';
import { openAiEndpoint } from '@/jobs/shared/ports/embedder/openai-endpoint';

describe('lexical-hash-v1', () => {
  const embedder = new LexicalHashEmbedder();

  it('is deterministic, 256-d and unit length', async () => {
    const [a, b] = await embedder.embed(['The deploy failed on Friday', 'The deploy failed on Friday']);
    expect(embedder.model).toBe('lexical-hash-v1');
    expect(a.length).toBe(256);
    expect(norm(a)).toBeCloseTo(1, 5);
    expect(Array.from(a)).toEqual(Array.from(b));
  });

  it('scores shared words high and unrelated texts low, and knows no synonyms', async () => {
    const [base, paraphrase, unrelated, synonym] = await embedder.embed([
      'The user prefers dark mode in the editor',
      'User prefers the dark mode in the editor',
      'Quarterly revenue grew by twelve percent',
      'car',
    ]);
    expect(cosine(base, paraphrase)).toBeGreaterThan(0.8);
    expect(cosine(base, unrelated)).toBeLessThan(0.3);
    const [automobile] = await embedder.embed(['automobile']);
    expect(cosine(synonym, automobile)).toBeLessThan(0.3);
  });

  it('tokenises any script, folds case and accents, and embeds a text without words', async () => {
    expect(tokenize('Café au LAIT, naïve—Ünïcode 42')).toEqual(['cafe', 'au', 'lait', 'naive', 'unicode', '42']);
    const [punct] = await embedder.embed(['?!']);
    expect(norm(punct)).toBeCloseTo(1, 5);
  });

  it('refuses a silly dimension count', () => {
    expect(() => new LexicalHashEmbedder({ dimensions: 3 })).toThrow(/8 to 8192/);
    expect(new LexicalHashEmbedder({ dimensions: 64 }).model).toBe('lexical-hash-v1-64');
  });
});

describe('batching', () => {
  it('splits into chunks and calls the embedder with at most 32 texts', async () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(() => chunk([1], 0)).toThrow(/positive integer/);
    const calls: number[] = [];
    const counting: Embedder = {
      model: 'count',
      maxBatchSize: 100,
      embed: async (texts) => {
        calls.push(texts.length);
        return texts.map(() => Float32Array.from([1]));
      },
    };
    const out = await embedAll(
      counting,
      Array.from({ length: 70 }, (_, i) => `t${i}`),
    );
    expect(out).toHaveLength(70);
    expect(calls).toEqual([32, 32, 6]);
  });
});

describe('the OpenAI-compatible embeddings adapter', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function fake(handler: (body: any, req: IncomingMessage) => { status: number; body: unknown }) {
    const requests: Array<{ body: any; headers: IncomingMessage['headers']; url?: string }> = [];
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const body = JSON.parse(raw || '{}');
        requests.push({ body, headers: req.headers, url: req.url });
        const out = handler(body, req);
        res.writeHead(out.status, { 'content-type': 'application/json' }).end(JSON.stringify(out.body));
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, requests };
  }

  const client = new HttpClient({ sleep: async () => undefined });

  it('posts the texts to /v1/embeddings with the model and key, and returns unit vectors in order', async () => {
    const { url, requests } = await fake((body) => ({
      status: 200,
      // Out of order and not normalised, as some servers answer.
      body: { data: body.input.map((t: string, i: number) => ({ index: i, embedding: [t.length, 1, 0] })).reverse() },
    }));
    const embedder = createEmbedder({ EMBEDDINGS_URL: url, EMBEDDINGS_API_KEY: 'sk-test', EMBEDDINGS_MODEL: 'mini' }, { client });
    expect(embedder).toBeInstanceOf(OpenAiEmbedder);
    const vectors = await embedder.embed(['abc', 'a']);
    expect(requests[0].url).toBe('/v1/embeddings');
    expect(requests[0].body).toEqual({ model: 'mini', input: ['abc', 'a'], encoding_format: 'float' });
    expect(requests[0].headers.authorization).toBe('Bearer sk-test');
    expect(requests[0].headers['x-request-id']).toBeTruthy();
    expect(vectors[0][0] / vectors[0][1]).toBeCloseTo(3);
    expect(vectors[1][0] / vectors[1][1]).toBeCloseTo(1);
    expect(norm(vectors[0])).toBeCloseTo(1, 5);
  });

  it('retries a 503 through the HTTP client and gives up on a 400 at once', async () => {
    let calls = 0;
    const { url } = await fake((body) => {
      calls++;
      if (body.input[0] === 'bad') return { status: 400, body: { error: 'bad input' } };
      if (calls === 1) return { status: 503, body: {} };
      return { status: 200, body: { data: [{ index: 0, embedding: [1, 0] }] } };
    });
    const embedder = new OpenAiEmbedder({ url, model: 'm', client });
    expect(await embedder.embed(['ok'])).toHaveLength(1);
    expect(calls).toBe(2);
    await expect(embedder.embed(['bad'])).rejects.toMatchObject({ status: 400 });
    expect(calls).toBe(3);
  });

  it('refuses an answer with the wrong number of vectors as permanent', async () => {
    const { url } = await fake(() => ({ status: 200, body: { data: [{ index: 0, embedding: [1] }] } }));
    const embedder = new OpenAiEmbedder({ url, model: 'm', client });
    await expect(embedder.embed(['a', 'b'])).rejects.toMatchObject({ name: 'PermanentError' });
  });

  it('uses the local embedder without EMBEDDINGS_URL and resolves endpoint forms', () => {
    expect(createEmbedder({ EMBEDDINGS_MODEL: 'x' }).model).toBe('lexical-hash-v1');
    expect(openAiEndpoint('https://api.example.com', 'embeddings')).toBe('https://api.example.com/v1/embeddings');
    expect(openAiEndpoint('https://api.example.com/v1/', 'embeddings')).toBe('https://api.example.com/v1/embeddings');
    expect(openAiEndpoint('http://h:8080/openai/v1/embeddings', 'embeddings')).toBe('http://h:8080/openai/v1/embeddings');
    expect(openAiEndpoint('http://h/proxy', 'chat/completions')).toBe('http://h/proxy/v1/chat/completions');
  });
});
