/**
 * Child process of the observer benchmark (forked by observer.ts): the least any Node.js
 * server can do for the clients' polls — a bare node:http server answering each path with
 * the bytes the dashboard answered for it (gzipped JSON and the same headers), from
 * memory, with no session check and no read. The runtime's loss with the clients polling
 * this instead of the dashboard is what the polls themselves cost this machine (the
 * clients' and a server's HTTP work on the shared cores), whatever the server does.
 *
 * IPC in: { bodies: { [path]: base64 } } once, then nothing. IPC out: { url } once listening.
 * Leaves when the parent closes the IPC channel.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { GZIP_HEADERS } from '@/dashboard/live/live-fast-path';

const messageSchema = z.object({ bodies: z.record(z.string().startsWith('/'), z.string()) });

process.once('message', (m) => {
  const bodies = new Map(Object.entries(messageSchema.parse(m).bodies).map(([p, b]) => [p, Buffer.from(b, 'base64')]));
  const server = http.createServer((req, res) => {
    const body = bodies.get(req.url ?? '');
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { ...GZIP_HEADERS, 'content-length': String(body.length) });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  process.on('disconnect', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
});
