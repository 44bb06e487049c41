import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '@/lib/http/http-client';
import { createSynthesiser } from '@/jobs/shared/ports/synthesiser/create-synthesiser';
import { ExtractiveSynthesiser, splitSentences } from '@/jobs/shared/ports/synthesiser/extractive-synthesiser';
import { OpenAiSynthesiser } from '@/jobs/shared/ports/synthesiser/openai-synthesiser';
import { CONSOLIDATION_PROMPT } from '@/jobs/shared/ports/synthesiser/synthesiser';

describe('the extractive synthesiser', () => {
  const cluster = [
    'The user prefers dark mode in the editor. They asked about it on Monday.',
    'User prefers dark mode in the editor.',
    'The user prefers dark mode in the code editor! Also the coffee machine is broken.',
  ];

  it('keeps the most central sentence first and drops exact and near duplicates', async () => {
    const text = await new ExtractiveSynthesiser().synthesise(cluster);
    expect(text.startsWith('User prefers dark mode in the editor.') || text.startsWith('The user prefers dark mode in the editor.')).toBe(
      true,
    );
    const darkMode = text.match(/dark mode/g) ?? [];
    expect(darkMode).toHaveLength(1);
  });

  it('is deterministic and bounded in sentences and characters', async () => {
    const s = new ExtractiveSynthesiser({ maxSentences: 2, maxChars: 80 });
    const a = await s.synthesise(cluster);
    expect(await s.synthesise(cluster)).toBe(a);
    expect(a.length).toBeLessThanOrEqual(80);
    expect(splitSentences(a).length).toBeLessThanOrEqual(2);
  });

  it('cuts a single over-long sentence at a word boundary', async () => {
    const long = `${'word '.repeat(200)}end.`;
    const text = await new ExtractiveSynthesiser({ maxChars: 50 }).synthesise([long]);
    expect(text.length).toBeLessThanOrEqual(50);
    expect(text.endsWith('…')).toBe(true);
  });

  it('refuses a cluster with no text and splits sentences sensibly', async () => {
    await expect(new ExtractiveSynthesiser().synthesise(['...', '  '])).rejects.toThrow(/no text/);
    expect(splitSentences('One. Two!\nThree? ---')).toEqual(['One.', 'Two!', 'Three?']);
  });
});

describe('the OpenAI-compatible chat adapter', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function fake(answer: (body: any) => { status: number; body: unknown }) {
    const requests: Array<{ body: any; headers: IncomingMessage['headers']; url?: string }> = [];
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const body = JSON.parse(raw || '{}');
        requests.push({ body, headers: req.headers, url: req.url });
        const out = answer(body);
        res.writeHead(out.status, { 'content-type': 'application/json' }).end(JSON.stringify(out.body));
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, requests };
  }

  const client = new HttpClient({ sleep: async () => undefined });

  it('sends the required prompt with max_tokens 200 and temperature 0.3 and returns the message', async () => {
    const { url, requests } = await fake(() => ({
      status: 200,
      body: { choices: [{ message: { role: 'assistant', content: '  The user prefers dark mode.  ' } }] },
    }));
    const s = createSynthesiser({ LLM_URL: `${url}/v1`, LLM_API_KEY: 'k', LLM_MODEL: 'small' }, { client });
    expect(s).toBeInstanceOf(OpenAiSynthesiser);
    expect(await s.synthesise(['likes dark mode', 'dark mode please'])).toBe('The user prefers dark mode.');
    const { body, headers, url: path } = requests[0];
    expect(path).toBe('/v1/chat/completions');
    expect(headers.authorization).toBe('Bearer k');
    expect(body.model).toBe('small');
    expect(body.max_tokens).toBe(200);
    expect(body.temperature).toBe(0.3);
    expect(body.messages[0]).toEqual({ role: 'system', content: CONSOLIDATION_PROMPT });
    expect(body.messages[1].content).toContain('- likes dark mode\n- dark mode please');
  });

  it('retries a 429 and treats an empty answer as permanent', async () => {
    let calls = 0;
    const { url } = await fake(() => {
      calls++;
      if (calls === 1) return { status: 429, body: {} };
      return { status: 200, body: { choices: [{ message: { content: calls === 2 ? 'ok' : '' } }] } };
    });
    const s = new OpenAiSynthesiser({ url, model: 'm', client });
    expect(await s.synthesise(['a'])).toBe('ok');
    expect(calls).toBe(2);
    await expect(s.synthesise(['a'])).rejects.toMatchObject({ name: 'PermanentError' });
  });

  it('falls back to the extractive synthesiser without LLM_URL', () => {
    expect(createSynthesiser({ LLM_MODEL: 'x' }).name).toBe('extractive-v1');
  });
});
