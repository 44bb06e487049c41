/**
 * Child process of the peer benchmark (forked by peer.ts): Bull Board
 * (@bull-board/api with @bull-board/express, its defaults) served by express on a
 * loopback port, over the same queues the dashboard shows — Bullpen's own BullMQ
 * Queue objects for the benchmark's prefix, each behind a BullMQAdapter. A process
 * of its own, as the dashboard is, so neither side's server shares an event loop with
 * the client timing it.
 *
 * Input: argv[2] as JSON ({ port, prefix }): the Redis port and the key prefix.
 * IPC out: { url } once listening. Leaves when the parent closes the IPC channel.
 */
import type { AddressInfo } from 'node:net';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import express from 'express';
import { z } from 'zod';
import { createBullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { silentLogger } from '@/lib/logging/logger';
import { readyClient } from '@/lib/redis/connection';
import { SHIPPED_JOB_NAMES } from '@/jobs';
import { shippedApp } from '@/jobs/shipped-app';

const argsSchema = z.object({ port: z.number().int().min(1).max(65_535), prefix: z.string().min(1) });

async function main(): Promise<void> {
  const args = argsSchema.parse(JSON.parse(process.argv[2] ?? '{}'));
  const bullpen = createBullpen({
    ...shippedApp,
    config: loadConfig({ LOG_LEVEL: 'silent' }),
    redis: { host: '127.0.0.1', port: args.port },
    prefix: args.prefix,
    logger: silentLogger,
  });
  await readyClient(bullpen.redis);
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath('/');
  createBullBoard({ queues: SHIPPED_JOB_NAMES.map((t) => new BullMQAdapter(bullpen.queues.get(t))), serverAdapter });
  const app = express();
  app.use('/', serverAdapter.getRouter());
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const { port } = server.address() as AddressInfo;
  process.on('disconnect', () => {
    // Polling clients' keep-alive sockets would hold close() open.
    server.closeAllConnections();
    server.close(() => void bullpen.close().finally(() => process.exit(0)));
  });
  process.send?.({ url: `http://127.0.0.1:${port}` });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
