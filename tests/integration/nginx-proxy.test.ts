import { once } from 'node:events';
import { createServer, get, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrustedProxies, resolveClient } from '@/dashboard/http/client-address';
import { freePort } from '@/lib/redis/embedded-server';
import { requestFrom } from '../helpers/http-from';
import { NginxProxy } from '../helpers/nginx-proxy';

/**
 * The shipped deploy/nginx/bullpen.conf in Debian's nginx, on a non-default port, in front
 * of two loopback servers that answer with what reached them. What the dashboard relies
 * on: the Host it sees is the one the browser sent (with its port: Next.js refuses a server
 * action whose Origin names another host), X-Forwarded-For is appended to and the scheme
 * set by the proxy, and the two upstreams share the load.
 */

interface Seen {
  upstream: number;
  peer: string;
  headers: IncomingHttpHeaders;
}

const CONF = path.resolve(import.meta.dirname, '../../deploy/nginx/bullpen.conf');
const PROXY_ADDRESS = '127.0.0.2';
const CLIENT_ADDRESS = '127.0.0.9';
const upstreams: Server[] = [];
/** The stream's second event comes this long after its first. */
const STREAM_GAP_MS = 2_000;
let ports: number[] = [];
let proxy: NginxProxy;

function echoServer(index: number): Server {
  return createServer((req, res) => {
    const seen: Seen = { upstream: index, peer: req.socket.remoteAddress ?? '', headers: req.headers };
    if (req.url?.startsWith('/api/live/stream')) {
      // A live stream as the dashboard writes one, without its X-Accel-Buffering header: the config alone must pass it.
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      res.write(`event: seen\ndata: ${JSON.stringify(seen)}\n\n`);
      const later = setTimeout(() => res.end('event: heartbeat\ndata: 1\n\n'), STREAM_GAP_MS);
      res.on('close', () => clearTimeout(later));
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(seen));
  });
}

async function viaProxy(pathname: string, headers: Record<string, string> = {}): Promise<Seen> {
  const res = await requestFrom(CLIENT_ADDRESS, `${proxy.url}${pathname}`, { headers });
  expect(res.status).toBe(200);
  return JSON.parse(res.body) as Seen;
}

beforeAll(async () => {
  for (const i of [0, 1]) {
    const s = echoServer(i);
    s.listen(0, '127.0.0.1');
    await once(s, 'listening');
    upstreams.push(s);
  }
  ports = upstreams.map((s) => (s.address() as AddressInfo).port);
  proxy = await NginxProxy.start({ confFile: CONF, listenPort: await freePort(), upstreamPorts: ports, bindAddress: PROXY_ADDRESS });
}, 30_000);

afterAll(async () => {
  await proxy?.stop();
  for (const s of upstreams) s.close();
});

describe('the shipped nginx config in front of two dashboards', () => {
  it('passes the Host the browser sent, port included, and overwrites a client-sent X-Forwarded-Host', async () => {
    const host = new URL(proxy.url).host;
    const seen = await viaProxy('/schedules', { host, 'x-forwarded-host': 'evil.example' });
    // Next.js compares a server action's Origin (`http://127.0.0.1:<port>`) with this.
    expect(seen.headers.host).toBe(host);
    expect(seen.headers['x-forwarded-host']).toBe(host);
  });

  it('appends the client to X-Forwarded-For and sets the scheme; behind TRUSTED_PROXIES the client is that last hop', async () => {
    const seen = await viaProxy('/sign-in', { 'x-forwarded-for': '198.51.100.7', 'x-forwarded-proto': 'https' });
    expect(seen.peer).toBe(PROXY_ADDRESS);
    expect(seen.headers['x-forwarded-for']).toBe(`198.51.100.7, ${CLIENT_ADDRESS}`);
    expect(seen.headers['x-forwarded-proto']).toBe('http');
    const headers = {
      forwardedFor: seen.headers['x-forwarded-for'] as string,
      forwardedProto: seen.headers['x-forwarded-proto'] as string,
    };
    expect(resolveClient(seen.peer, headers, new TrustedProxies([PROXY_ADDRESS]))).toEqual({ ip: CLIENT_ADDRESS, https: false });
    // Without TRUSTED_PROXIES every client would be the proxy.
    expect(resolveClient(seen.peer, headers, new TrustedProxies([]))).toEqual({ ip: PROXY_ADDRESS, https: false });
  });

  it('balances over both upstreams, and a pinned proxy sends everything to one', async () => {
    const spread = new Set<number>();
    for (let i = 0; i < 4; i++) spread.add((await viaProxy(`/probe-${i}`)).upstream);
    expect([...spread].sort()).toEqual([0, 1]);

    await proxy.pin(1);
    for (let i = 0; i < 4; i++) expect((await viaProxy(`/pinned-${i}`)).upstream).toBe(1);
    await proxy.pin(null);
    const logged = proxy.requests().filter((r) => r.uri.startsWith('/pinned-'));
    expect(logged.map((r) => r.upstream)).toEqual(Array(4).fill(`127.0.0.1:${ports[1]}`));
  });

  it("passes a live stream's events as they are written, not when the answer ends, with the same forwarded headers", async () => {
    const host = new URL(proxy.url).host;
    const started = performance.now();
    const first = await new Promise<{ at: number; text: string; type?: string }>((resolve, reject) => {
      const req = get(
        `${proxy.url}/api/live/stream?s=%2Fapi%2Flive%2Foverview`,
        { localAddress: CLIENT_ADDRESS, headers: { host } },
        (res) => {
          res.once('data', (chunk: Buffer) => {
            resolve({ at: performance.now() - started, text: chunk.toString(), type: res.headers['content-type'] });
            req.destroy();
          });
        },
      );
      req.on('error', reject);
    });
    // Buffered, the first event would arrive with the second, STREAM_GAP_MS later.
    expect(first.at).toBeLessThan(STREAM_GAP_MS / 2);
    expect(first.type).toBe('text/event-stream');
    const seen = JSON.parse(/^event: seen\ndata: (.*)$/m.exec(first.text)![1]) as Seen;
    expect(seen.headers.host).toBe(host);
    expect(seen.headers['x-forwarded-for']).toBe(CLIENT_ADDRESS);
    expect(seen.peer).toBe(PROXY_ADDRESS);
  });
});
