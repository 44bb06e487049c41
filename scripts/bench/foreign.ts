/**
 * Foreign-queues benchmark (issue 10): the overview, the queues page (which discovers
 * and counts the foreign queues), one of Bullpen's queue pages and a foreign queue's
 * page, as real pages from `next start`, with 50 foreign BullMQ queues under the prefix
 * `bull` beside Bullpen's own. Target: each page under 150 ms.
 * Run alone: `node --import tsx scripts/bench/index.ts foreign`.
 */
import { Queue } from 'bullmq';
import { shippedApp } from '@/jobs/shipped-app';
import { type Bullpen, createBullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { silentLogger } from '@/lib/logging/logger';
import { readyClient } from '@/lib/redis/connection';
import type { EmbeddedRedis } from '@/lib/redis/embedded-server';
import { runHttp, type HttpTiming, type PageProbe } from './dashboard-http';
import { ensureBuild, startDashboard } from './dashboard-next';
import { fmt, median } from './stats';

const PREFIX = 'bench-foreign';
const FOREIGN_PREFIX = 'bull';
const FOREIGN_QUEUES = 50;
const JOBS_PER_FOREIGN_QUEUE = 200;
const TARGET_MS = 150;

export interface ForeignBenchResult {
  foreignQueues: number;
  jobsPerQueue: number;
  reps: number;
  pages: Record<string, HttpTiming & { path: string }>;
}

async function seed(bullpen: Bullpen): Promise<void> {
  // Bullpen's own queues hold some work too.
  for (let i = 0; i < 200; i++) {
    await bullpen.dispatcher.dispatch(
      'webhook-dispatch',
      { webhookId: `w${i}`, event: 'bench', payload: { i } },
      { tenant: { orgId: `org-${i % 10}` } },
    );
  }
  for (let q = 0; q < FOREIGN_QUEUES; q++) {
    const queue = new Queue(`svc-${q}`, { connection: bullpen.redis, prefix: FOREIGN_PREFIX });
    await queue.addBulk(
      Array.from({ length: JOBS_PER_FOREIGN_QUEUE }, (_, j) => ({
        name: j % 3 === 0 ? 'email' : 'sms',
        data: { to: `user-${j}@example.com`, n: j },
        ...(j % 10 === 0 ? { opts: { delay: 3_600_000 } } : {}),
      })),
    );
    await queue.close();
  }
}

export async function runForeignBench(opts: { redis: EmbeddedRedis; reps?: number }): Promise<ForeignBenchResult> {
  const reps = opts.reps ?? 10;
  const prefixes = `${FOREIGN_PREFIX},${PREFIX}`;
  const bullpen = createBullpen({
    ...shippedApp,
    config: loadConfig({ LOG_LEVEL: 'silent', BULLPEN_QUEUE_PREFIXES: prefixes }),
    redis: { host: '127.0.0.1', port: opts.redis.port },
    prefix: PREFIX,
    logger: silentLogger,
  });
  await readyClient(bullpen.redis);
  await seed(bullpen);
  console.log(`  seeded ${FOREIGN_QUEUES} foreign queues × ${JOBS_PER_FOREIGN_QUEUE} jobs beside Bullpen's ${shippedApp.jobs.length}`);
  const build = await ensureBuild();
  if (build.unusable) throw new Error(`no usable dashboard build: ${build.unusable}`);
  console.log(`  build: ${build.builtInS !== undefined ? `built in ${fmt(build.builtInS, 0)} s` : 'reused'}`);
  // The dashboard process reads BULLPEN_QUEUE_PREFIXES from its environment.
  process.env.BULLPEN_QUEUE_PREFIXES = prefixes;
  const dashboard = await startDashboard(bullpen, opts.redis.url);
  try {
    const probes: PageProbe[] = [
      { key: 'overview', path: () => '/', markers: () => ['webhook-dispatch'] },
      { key: 'queues', path: () => '/queues', markers: () => ['svc-0', `svc-${FOREIGN_QUEUES - 1}`] },
      { key: 'own queue', path: () => '/queues/webhook-dispatch?state=prioritized', markers: () => ['webhook-dispatch'] },
      {
        key: 'foreign queue',
        path: (r) => `/queues/${encodeURIComponent(`${FOREIGN_PREFIX}~svc-${Math.max(0, r) % FOREIGN_QUEUES}`)}?state=waiting`,
        markers: (r) => [`svc-${Math.max(0, r) % FOREIGN_QUEUES}`],
      },
    ];
    const timings = await runHttp(dashboard, probes, reps);
    const pages: ForeignBenchResult['pages'] = {};
    for (const p of probes) {
      pages[p.key] = { ...timings[p.key], path: p.path(0) };
      console.log(
        `  ${p.key.padEnd(14)} fresh median ${fmt(median(timings[p.key].fresh.samples), 1)} ms, cached ${fmt(median(timings[p.key].cached.samples), 1)} ms`,
      );
    }
    return { foreignQueues: FOREIGN_QUEUES, jobsPerQueue: JOBS_PER_FOREIGN_QUEUE, reps, pages };
  } finally {
    await dashboard.stop();
    delete process.env.BULLPEN_QUEUE_PREFIXES;
    await bullpen.close();
  }
}

export function foreignSection(r: ForeignBenchResult): string {
  const rows = Object.entries(r.pages).map(([key, t]) => {
    const fresh = median(t.fresh.samples);
    return `| ${key} | \`${t.path}\` | ${fmt(fresh, 1)} | ${fmt(median(t.cached.samples), 1)} | ${fresh < TARGET_MS ? 'yes' : '**no**'} |`;
  });
  return [
    '## Dashboard beside foreign queues',
    '',
    `Command: \`node --import tsx scripts/bench/index.ts foreign\`. ${r.foreignQueues} BullMQ queues of another service under the prefix \`bull\``,
    `(${r.jobsPerQueue} jobs each, a tenth delayed) beside Bullpen's ${shippedApp.jobs.length} (200 webhook jobs), \`BULLPEN_QUEUE_PREFIXES=bull,…\`. The real pages from`,
    `\`next start\`, signed in, ${r.reps} rounds after two warm-ups; "fresh" is with the 1.5 s live cache expired (the queues page`,
    'also discovers the foreign queues by SCAN, reused for 30 s, and counts each one), "cached" the same URL again at once.',
    '',
    `| page | path | fresh median ms | cached median ms | under ${TARGET_MS} ms |`,
    '|---|---|---:|---:|---|',
    ...rows,
    '',
  ].join('\n');
}
