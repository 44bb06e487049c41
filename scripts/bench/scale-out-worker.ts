/**
 * One worker process of the scale-out benchmark (scripts/bench/scale-out.ts): the
 * worker as `npm run worker` composes it (worker/main.ts, with its schedules,
 * reconciler, usage recorder, heartbeat and /metrics on METRICS_PORT) on the queues
 * WORKER_TYPES names, a no-op handler for each in place of its own, BENCH_CONCURRENCY
 * per queue, logs at info to /dev/null as in the runtime benchmark.
 *
 * Over IPC it tells its parent `{ ready: true }` once started, then `{ ran: n }` (the
 * jobs its handlers have run so far) at most every 20 ms while the count moves: the
 * parent counts completions without asking Redis, so the count adds nothing to the
 * commands it measures. SIGTERM stops it as it stops the worker.
 * Env: as the worker (REDIS_URL or REDIS_CLUSTER_NODES, BULLPEN_PREFIX, WORKER_TYPES,
 * METRICS_PORT), and BENCH_CONCURRENCY.
 */
import pino from 'pino';
import { loadConfigOrExit } from '@/lib/config';
import type { HandlerMap } from '@/lib/runtime/handler';
import { installShutdown } from '@/lib/runtime/shutdown';
import { startAppWorker } from '@/lib/app/start-app-worker';
import { shippedApp } from '@/jobs/shipped-app';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false }));
  let ran = 0;
  const handlers: HandlerMap = {};
  for (const type of config.WORKER_TYPES ?? []) {
    handlers[type] = async () => {
      ran++;
    };
  }
  const worker = await startAppWorker(shippedApp, { config, logger, handlers, concurrency: Number(process.env.BENCH_CONCURRENCY ?? 50) });
  installShutdown(() => worker.stop(10_000), logger);
  let sent = 0;
  setInterval(() => {
    if (ran !== sent) {
      sent = ran;
      process.send?.({ ran });
    }
  }, 20).unref();
  process.send?.({ ready: true });
}

void main();
