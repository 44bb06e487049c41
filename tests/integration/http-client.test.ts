import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PermanentError } from '@/lib/errors/permanent-error';
import { TimeoutError } from '@/lib/errors/timeout-error';
import { freePort } from '@/lib/redis/embedded-server';
import { HttpClient } from '@/lib/http/http-client';
import { HttpResponseError } from '@/lib/http/http-response-error';
import { parseRetryAfter } from '@/lib/http/retry-after';
import { SsrfGuard } from '@/lib/http/ssrf-guard';

/**
 * Real sockets on loopback against a node:http server; no Redis is involved, so none
 * is started.
 */
interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
type Reply = (req: Seen, res: http.ServerResponse) => void;

let server: http.Server;
let base: string;
let seen: Seen[] = [];
let replies: Reply[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
      seen.push(s);
      const reply = replies.shift() ?? ((_r, w) => json(w, 200, { ok: true }));
      reply(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  seen = [];
  replies = [];
});

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
const recording = () => {
  const delays: number[] = [];
  return { delays, sleep: async (ms: number) => void delays.push(ms) };
};

describe('HttpClient', () => {
  it('sends JSON with x-request-id and idempotency-key and returns status, headers, body and latency', async () => {
    replies.push((req, res) => json(res, 201, { echo: JSON.parse(req.body) }, { 'x-thing': 'yes' }));
    const client = new HttpClient();
    const res = await client.request(`${base}/charges`, {
      json: { amount: 5 },
      requestId: 'req-1',
      idempotencyKey: 'billing:u1:i1:charge:v1',
    });
    expect(res).toMatchObject({ status: 201, json: { echo: { amount: 5 } }, truncated: false, attempts: 1, requestId: 'req-1' });
    expect(res.headers['x-thing']).toBe('yes');
    expect(res.latencyMs).toBeGreaterThanOrEqual(0);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/charges', body: '{"amount":5}' });
    expect(seen[0].headers).toMatchObject({
      'content-type': 'application/json',
      'x-request-id': 'req-1',
      'idempotency-key': 'billing:u1:i1:charge:v1',
    });
  });

  it('makes up a UUID request id and sends no idempotency-key when none is given', async () => {
    await new HttpClient().request(`${base}/x`);
    expect(seen[0].method).toBe('GET');
    expect(seen[0].headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[0].headers['idempotency-key']).toBeUndefined();
  });

  it('retries a 503 with the same request id and key, honouring Retry-After', async () => {
    replies.push((_r, res) => json(res, 503, { error: 'busy' }, { 'retry-after': '2' }));
    const { sleep, delays } = recording();
    const client = new HttpClient({ sleep, random: () => 0 });
    const res = await client.request(`${base}/x`, { json: {}, idempotencyKey: 'k-1' });
    expect(res.status).toBe(200);
    expect(res.attempts).toBe(2);
    expect(seen).toHaveLength(2);
    expect(seen[1].headers['x-request-id']).toBe(seen[0].headers['x-request-id']);
    expect(seen.map((s) => s.headers['idempotency-key'])).toEqual(['k-1', 'k-1']);
    expect(delays).toEqual([2_000]);
  });

  it('throws an HttpResponseError with the answer for a 404, without retrying', async () => {
    replies.push((_r, res) => json(res, 404, { error: 'no such thing' }));
    const err = await new HttpClient().request(`${base}/missing?token=secret`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpResponseError);
    const e = err as HttpResponseError;
    expect(e.status).toBe(404);
    expect(e.response.text).toBe('{"error":"no such thing"}');
    expect(e.message).not.toContain('secret');
    expect(seen).toHaveLength(1);
  });

  it('hands a redirect back instead of following it when asked', async () => {
    replies.push((_r, res) => {
      res.writeHead(302, { location: `${base}/elsewhere` });
      res.end();
    });
    const err = await new HttpClient().request(`${base}/x`, { json: {}, redirect: 'manual' }).catch((e: unknown) => e);
    expect((err as HttpResponseError).status).toBe(302);
    expect(seen.map((s) => s.url)).toEqual(['/x']);
  });

  it('keeps at most maxBodyBytes of a large answer and marks it truncated', async () => {
    replies.push((_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`"${'x'.repeat(3 * 1024 * 1024)}"`);
    });
    const res = await new HttpClient({ maxBodyBytes: 1_024 }).request(`${base}/big`);
    expect(res.truncated).toBe(true);
    expect(Buffer.byteLength(res.text)).toBe(1_024);
    expect(res.json).toBeUndefined();
  });

  it('aborts an attempt at its time limit and retries it', async () => {
    replies.push(
      () => undefined,
      () => undefined,
    ); // never answer
    const { sleep, delays } = recording();
    const started = performance.now();
    const err = await new HttpClient({ sleep })
      .request(`${base}/slow`, { policy: { timeoutMs: 100, maxAttempts: 2 } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    // Two attempts, each held to its limit: one wait between them, and no sooner than two limits.
    // Counted on the client's side: on a loaded machine the second attempt can be aborted before
    // the server has read its request.
    expect(delays).toHaveLength(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
    expect(seen.length).toBeGreaterThanOrEqual(1);
  });

  it('stops at once when the caller aborts', async () => {
    replies.push(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('job cancelled')), 50);
    const err = await new HttpClient()
      .request(`${base}/slow`, { signal: controller.signal, policy: { maxAttempts: 5 } })
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe('job cancelled');
    expect(seen).toHaveLength(1);
  });

  it('retries a refused connection as a network error', async () => {
    const port = await freePort();
    const { sleep, delays } = recording();
    const err = await new HttpClient({ sleep }).request(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect((err as { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
    expect(delays).toHaveLength(2);
  });
});

describe('HttpClient with the SSRF guard’s pinned dispatcher', () => {
  it('refuses a name that resolves to loopback at connection time, without reaching the server', async () => {
    const guard = new SsrfGuard({ resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    const port = (server.address() as AddressInfo).port;
    const err = await new HttpClient({ dispatcher: guard.dispatcher() })
      .request(`http://rebinding.example:${port}/`)
      .catch((e: unknown) => e);
    await guard.close();
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as Error).message).toMatch(/rebinding\.example resolves to a private or reserved address/);
    expect((err as Error).message).not.toMatch(/127\.0\.0\.1/);
    expect(seen).toHaveLength(0);
  });

  it('connects to the checked address when the allow-list names it', async () => {
    const guard = new SsrfGuard({ allowHosts: ['127.0.0.1'], resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    expect(guard.dispatcher()).toBeDefined();
    const port = (server.address() as AddressInfo).port;
    const res = await new HttpClient({ dispatcher: guard.dispatcher() }).request(`http://receiver.example:${port}/in`);
    await guard.close();
    expect(res.status).toBe(200);
    expect(seen[0].headers.host).toBe(`receiver.example:${port}`);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe('redirects under an SSRF guard', () => {
  /** A second loopback server on 127.0.0.2: the forbidden target a redirect points at. */
  let inner: http.Server;
  let innerHits = 0;
  let innerPort = 0;

  beforeAll(async () => {
    inner = http.createServer((_req, res) => {
      innerHits++;
      res.end('internal');
    });
    await new Promise<void>((r) => inner.listen(0, '127.0.0.2', r));
    innerPort = (inner.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((r) => inner.close(() => r()));
  });
  beforeEach(() => {
    innerHits = 0;
  });

  /** Only the first hop's address (127.0.0.1) is allowed; 127.0.0.2 is loopback and refused. */
  function guarded() {
    const guard = new SsrfGuard({ allowHosts: ['127.0.0.1'] });
    const client = new HttpClient({ dispatcher: guard.dispatcher(), checkTarget: (url) => guard.check(url), policy: { maxAttempts: 1 } });
    return { guard, client };
  }

  it.each([301, 302, 303, 307, 308])('a %i to an IP literal the guard refuses is not followed', async (status) => {
    replies.push((_r, w) => {
      w.writeHead(status, { location: `http://127.0.0.2:${innerPort}/metadata` });
      w.end();
    });
    const { guard, client } = guarded();
    const err = await client.request(`${base}/hop`, { method: 'POST', json: { a: 1 } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await guard.close();
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as Error).message).toMatch(/127\.0\.0\.2 is a private or reserved address/);
    expect(innerHits).toBe(0);
  });

  it('follows an allowed redirect, turning a 303 after POST into a GET', async () => {
    replies.push((_r, w) => {
      w.writeHead(303, { location: '/landed' });
      w.end();
    });
    const { guard, client } = guarded();
    const res = await client.request(`${base}/start`, { method: 'POST', json: { a: 1 } });
    await guard.close();
    expect(res.status).toBe(200);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /start', 'GET /landed']);
  });

  it.each([301, 302, 307, 308])('without checkTarget, a %i to another origin on a private address is refused', async (status) => {
    replies.push((_r, w) => {
      w.writeHead(status, { location: `http://127.0.0.2:${innerPort}/metadata` });
      w.end();
    });
    const err = await new HttpClient({ policy: { maxAttempts: 1 } }).request(`${base}/hop`).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PermanentError);
    expect(err).toMatchObject({ code: 'SSRF_REFUSED' });
    expect((err as Error).message).toMatch(/redirected to 127\.0\.0\.2:\d+, which is not a public http\(s\) address/);
    expect(innerHits).toBe(0);
  });

  it('without checkTarget, a redirect to a URL that is not http(s) is refused', async () => {
    replies.push((_r, w) => {
      w.writeHead(302, { location: 'file:///etc/passwd' });
      w.end();
    });
    await expect(new HttpClient({ policy: { maxAttempts: 1 } }).request(`${base}/hop`)).rejects.toMatchObject({ code: 'SSRF_REFUSED' });
  });

  it('without checkTarget, follows a redirect on the same origin', async () => {
    replies.push((_r, w) => {
      w.writeHead(307, { location: '/v2/landed' });
      w.end();
    });
    const res = await new HttpClient({ policy: { maxAttempts: 1 } }).request(`${base}/v1`, { method: 'POST', json: { a: 1 } });
    expect(res.status).toBe(200);
    expect(seen.map((s) => `${s.method} ${s.url} ${s.body}`)).toEqual(['POST /v1 {"a":1}', 'POST /v2/landed {"a":1}']);
  });

  it('stops after five redirects', async () => {
    for (let i = 0; i < 7; i++) {
      replies.push((_r, w) => {
        w.writeHead(302, { location: `/loop-${i}` });
        w.end();
      });
    }
    const { guard, client } = guarded();
    await expect(client.request(`${base}/loop`)).rejects.toThrow(/more than 5 redirects/);
    await guard.close();
  });
});
