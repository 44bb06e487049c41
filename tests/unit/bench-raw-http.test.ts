import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { getRequest, KeepAliveConnection } from '@/scripts/bench/raw-http';

/** Servers and connections of a test, closed after it. */
const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

function listen(server: net.Server): Promise<number> {
  open.push({ close: () => server.close() });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** In an answer's parts: end the connection here, after the parts before it are written. */
const END = Symbol('end');

/** A TCP server that answers each request (a head ending in a blank line) with `answer(n)`'s writes, in order. */
async function scripted(
  answer: (n: number, socket: net.Socket) => Array<string | Buffer | typeof END> | 'close',
): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  let n = 0;
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => {
    connections++;
    sockets.push(socket);
    let head = '';
    socket.on('data', async (chunk) => {
      head += chunk.toString('latin1');
      while (head.includes('\r\n\r\n')) {
        head = head.slice(head.indexOf('\r\n\r\n') + 4);
        const parts = answer(n++, socket);
        if (parts === 'close') return void socket.destroy();
        // Each part as its own write, a tick apart, so a reader sees the answer in pieces.
        for (const part of parts) {
          if (part === END) return void socket.end();
          socket.write(part);
          await new Promise((r) => setTimeout(r, 2));
        }
      }
    });
  });
  open.push({ close: () => sockets.forEach((s) => s.destroy()) });
  return { port: await listen(server), connections: () => connections };
}

function connect(port: number): KeepAliveConnection {
  const c = new KeepAliveConnection('127.0.0.1', port);
  open.push(c);
  return c;
}

const GET = (path = '/api/live/overview') => getRequest('127.0.0.1', path, { cookie: 'bullpen_session=abc', 'accept-encoding': 'gzip' });

describe('the benchmark clients’ keep-alive HTTP connection', () => {
  it('reads node:http answers on one connection: status, gzipped length, cookie and path sent as given', async () => {
    const seen: Array<{ url?: string; cookie?: string; encoding?: string; remote: string }> = [];
    const body = gzipSync(JSON.stringify({ queues: Array.from({ length: 200 }, (_, i) => ({ i })) }));
    const server = http.createServer((req, res) => {
      seen.push({ url: req.url, cookie: req.headers.cookie, encoding: req.headers['accept-encoding'], remote: `${req.socket.remotePort}` });
      if (req.url === '/missing') return void res.writeHead(404, { 'content-length': '9' }).end('not found');
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(body.length) }).end(body);
    });
    const c = connect(await listen(server));
    for (let i = 0; i < 3; i++) expect(await c.send(GET())).toEqual({ status: 200, bodyBytes: body.length });
    expect(await c.send(GET('/missing'))).toEqual({ status: 404, bodyBytes: 9 });
    const kept = await c.send(GET(), { keep: true });
    expect(kept.headers?.['content-encoding']).toBe('gzip');
    expect(kept.body?.equals(body)).toBe(true);
    expect(seen.map((s) => s.url)).toEqual([
      '/api/live/overview',
      '/api/live/overview',
      '/api/live/overview',
      '/missing',
      '/api/live/overview',
    ]);
    expect(seen.every((s) => s.cookie === 'bullpen_session=abc' && s.encoding === 'gzip')).toBe(true);
    expect(new Set(seen.map((s) => s.remote)).size).toBe(1);
  });

  it('reads a chunked answer split at every awkward point, then the next answer on the same connection', async () => {
    const server = await scripted((n) =>
      n === 0
        ? ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r', '\n5\r\nhel', 'lo\r', '\n6;ext=1\r\n world\r\n0', '\r\n\r\n']
        : ['HTTP/1.1 401 Unauthorized\r\nContent-Length: 2\r\n\r\nno'],
    );
    const c = connect(server.port);
    const chunked = await c.send(GET(), { keep: true });
    expect(chunked).toMatchObject({ status: 200, bodyBytes: 11, headers: { 'transfer-encoding': 'chunked' } });
    expect(chunked.body?.toString()).toBe('hello world');
    expect(await c.send(GET())).toEqual({ status: 401, bodyBytes: 2 });
    expect(server.connections()).toBe(1);
  });

  it('reads to the close when an answer has no length, and opens a new connection for the next request', async () => {
    const server = await scripted((n) =>
      n === 0
        ? ['HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n', 'abc', 'defg', END]
        : ['HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n'],
    );
    const c = connect(server.port);
    const untilClose = await c.send(GET(), { keep: true });
    expect(untilClose).toMatchObject({ status: 200, bodyBytes: 7, headers: { connection: 'close' } });
    expect(untilClose.body?.toString()).toBe('abcdefg');
    expect(await c.send(GET())).toEqual({ status: 204, bodyBytes: 0 });
    expect(server.connections()).toBe(2);
  });

  it('fails a request whose answer is cut short, and the next request reconnects', async () => {
    const server = await scripted((n) => (n === 0 ? 'close' : ['HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx']));
    const c = connect(server.port);
    await expect(c.send(GET())).rejects.toThrow(/closed the connection before the answer was complete/);
    expect(await c.send(GET())).toEqual({ status: 200, bodyBytes: 1 });
    expect(server.connections()).toBe(2);
  });

  it('refuses what is not HTTP, a bad length or chunk size, and a second request in flight', async () => {
    const answers = [
      'SSH-2.0-OpenSSH\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    ];
    const server = await scripted((n) => [answers[n]]);
    const c = connect(server.port);
    await expect(c.send(GET())).rejects.toThrow(/not an HTTP\/1.1 status line/);
    await expect(c.send(GET())).rejects.toThrow(/invalid Content-Length/);
    const third = c.send(GET());
    await expect(c.send(GET())).rejects.toThrow(/already in flight/);
    await expect(third).rejects.toThrow(/bad chunk size/);
  });

  it('fails a request in flight when the connection is closed, and can send again after', async () => {
    const server = await scripted((n) => (n === 0 ? [] : ['HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n']));
    const c = connect(server.port);
    const first = c.send(GET());
    await new Promise((r) => setTimeout(r, 20));
    c.close();
    await expect(first).rejects.toThrow(/closed before the answer was complete/);
    expect(await c.send(GET())).toEqual({ status: 200, bodyBytes: 0 });
  });

  it('builds a request only from a path and headers without line breaks', () => {
    expect(GET('/api/live/queues/x?state=wait').toString('latin1')).toBe(
      'GET /api/live/queues/x?state=wait HTTP/1.1\r\nhost: 127.0.0.1\r\ncookie: bullpen_session=abc\r\naccept-encoding: gzip\r\n\r\n',
    );
    expect(() => getRequest('h', '/a b', {})).toThrow(/not a request path/);
    expect(() => getRequest('h', 'http://elsewhere/', {})).toThrow(/not a request path/);
    expect(() => getRequest('h', '/a', { cookie: 'x\r\nhost: evil' })).toThrow(/line break/);
  });
});
