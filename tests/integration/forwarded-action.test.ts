import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_FORWARDED_HEADER, FORWARDED_STATUS_HEADER, relayForwardedActionStatus } from '@/dashboard/http/forwarded-action';

/*
 * The dashboard's server relays the status of a server action Next forwarded to another
 * page (dashboard/http/forwarded-action.ts). This server does what Next does with such an
 * action, on real loopback sockets: the first request posts it again to the same server
 * with x-action-forwarded, copies the answer's headers into its own response and sends
 * its body with the default status. No Redis is involved, so none is started.
 */
let server: http.Server;
let base: string;
let innerStatus = 403;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    relayForwardedActionStatus(req, res);
    if (req.headers[ACTION_FORWARDED_HEADER]) {
      res.statusCode = innerStatus;
      res.setHeader('content-type', 'text/x-component');
      res.end('1:E{"digest":"NEXT_HTTP_ERROR_FALLBACK;403"}\n');
      return;
    }
    if (req.url === '/plain') {
      res.statusCode = 201;
      res.end('plain');
      return;
    }
    void fetch(`${base}/page-that-holds-it`, { method: 'POST', headers: { [ACTION_FORWARDED_HEADER]: '1' } }).then(async (inner) => {
      for (const [key, value] of inner.headers) if (key !== 'content-length') res.setHeader(key, value);
      res.end(await inner.text());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('relayForwardedActionStatus', () => {
  it.each([401, 403, 500])(
    'a forwarded action answered %i: the first request answers with that status, and the header stays inside',
    async (status) => {
      innerStatus = status;
      const res = await fetch(`${base}/another-page`, { method: 'POST' });
      expect(res.status).toBe(status);
      expect(res.headers.get(FORWARDED_STATUS_HEADER)).toBeNull();
      expect(await res.text()).toContain('NEXT_HTTP_ERROR_FALLBACK');
    },
  );

  it('a forwarded success leaves the first answer as it is', async () => {
    innerStatus = 200;
    const res = await fetch(`${base}/another-page`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.headers.get(FORWARDED_STATUS_HEADER)).toBeNull();
  });

  it('a request nothing was forwarded for keeps its own status', async () => {
    const res = await fetch(`${base}/plain`, { method: 'POST' });
    expect(res.status).toBe(201);
    expect(res.headers.get(FORWARDED_STATUS_HEADER)).toBeNull();
  });
});
