/**
 * The dashboard's HTTP server: Next.js's request handler behind a plain node:http
 * server, so the app can know its client. Next does not expose the socket's address to
 * server actions, and a client can send any X-Forwarded-For; here the client is resolved
 * from the socket and the headers of TRUSTED_PROXIES only (lib/http/client-address.ts)
 * and handed to the app in a header no browser can forge. `npm run web` runs this.
 *
 *   PORT=3000 HOST=127.0.0.1 node --import tsx scripts/web-server.ts
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { TLSSocket } from 'node:tls';
import next from 'next';
import { loadConfigOrExit } from '@/lib/config';
import { TrustedProxies, resolveClient } from '@/lib/http/client-address';
import { CLIENT_HEADER, CLIENT_TOKEN_ENV, encodeClientHeader } from '@/lib/http/client-header';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const host = process.env.HOST ?? '127.0.0.1';
  const trusted = new TrustedProxies(config.TRUSTED_PROXIES);
  const token = randomBytes(24).toString('base64url');
  // Read by app/_lib/client.ts in this same process.
  process.env[CLIENT_TOKEN_ENV] = token;

  const app = next({ dev: false, dir: process.cwd(), hostname: host, port: config.PORT });
  const handle = app.getRequestHandler();
  await app.prepare();

  const server = http.createServer((req, res) => {
    const forwarded = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v.join(',') : v;
    };
    const client = resolveClient(
      req.socket.remoteAddress,
      { forwardedFor: forwarded('x-forwarded-for'), forwardedProto: forwarded('x-forwarded-proto') },
      trusted,
      Boolean((req.socket as TLSSocket).encrypted),
    );
    req.headers[CLIENT_HEADER] = encodeClientHeader(client, token);
    void handle(req, res);
  });
  server.listen(config.PORT, host, () => {
    console.log(`dashboard listening on http://${host}:${config.PORT}`);
  });

  let closing = false;
  const stop = () => {
    if (closing) process.exit(1);
    closing = true;
    // Open keep-alive connections (a polling tab) would hold close() forever.
    server.closeIdleConnections();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 5_000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err) => {
  console.error('dashboard failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
