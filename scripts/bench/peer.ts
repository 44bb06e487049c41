/**
 * Peer benchmark (issue 11, item 7): the overview's server time beside Bull Board's on
 * the same Redis holding a million jobs (peer-seed.ts). Each side is asked what its own
 * UI polls for its overview:
 * - Bullpen: GET /api/live/overview with a viewer's session (dashboard/client/query-keys.ts),
 *   from `next start`;
 * - Bull Board: GET /api/queues?page=1&jobsPerPage=10, what its UI's queue list polls
 *   with its default settings (no queue open: no activeQueue, no status), from express
 *   (peer-board.ts).
 * Both are timed the same way, from the client over loopback, request to the whole
 * body, the same number of samples after the same warm-up, interleaved with the side
 * going first alternating. Our timed requests come as one tab polls, 3 s apart: while
 * a tab polls, the dashboard keeps the overview fresh in the background
 * (dashboard/live/live-cache.ts) and its server answers from memory
 * (dashboard/live/live-fast-path.ts). The cold case — the first poll after nobody
 * polled for longer than the watch window, when the read runs inside the request — is
 * timed on its own afterwards and shown beside. Target: ours ≤ 0.5× theirs (medians).
 *
 * Run alone: `node --import tsx scripts/bench/index.ts peer`. Smaller trial runs:
 * BENCH_PEER_JOBS (default 1000000), BENCH_PEER_SAMPLES (default 30), BENCH_PEER_COLD
 * (cold samples, default 5, each after a 12 s pause); BENCH_NO_BUILD=1 keeps a stale build.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { queuesHandler } from '@bull-board/api/dist/handlers/queues.js';
import { LIVE_TTL_MS, LIVE_WATCH_MS } from '@/dashboard/live/live-cache';
import { LIVE_REFETCH_MS } from '@/dashboard/client/query-keys';
import { type Overview, readOverview } from '@/dashboard/queues/queue-overview';
import { readyClient } from '@/lib/redis/connection';
import type { EmbeddedRedis } from '@/lib/redis/embedded-server';
import { closeChild } from './child';
import { redisCommands } from './cpu-time';
import { getRequestTo, KeepAliveConnection } from './raw-http';
import { ensureBuild, startDashboard, type RunningDashboard } from './dashboard-next';
import { type Backlog, seedBacklog } from './peer-seed';
import { makeBullpen } from './runtime';
import { fmt, median, percentile, envInt } from './stats';

const PREFIX = 'bench-peer';
const CHILD = path.join(__dirname, 'peer-board.ts');
const WARMUP = 3;
const TARGET = 0.5;
/** Bull Board's UI with its default settings, on its queue list (lib: @bull-board/ui's getQueues). */
const BOARD_PATH = '/api/queues?page=1&jobsPerPage=10';
const OURS_PATH = '/api/live/overview';
/** Our requests come this long after the previous one's start, as one open overview tab polls. */
const OURS_EVERY_MS = LIVE_REFETCH_MS;
/** A cold request comes this long after the previous request of any kind: nobody is watching the overview any more. */
const COLD_AFTER_MS = LIVE_WATCH_MS + LIVE_TTL_MS + 500;

/**
 * Over HTTP: ours as a polling tab gets it, ours again at once, ours cold (nobody polled
 * for the watch window), theirs; in the bench process: each side's read alone.
 */
type Side = 'ours' | 'oursCached' | 'oursCold' | 'theirs' | 'oursRead' | 'theirsRead';

interface Sample {
  ms: number;
  /** The answer's JSON. */
  bytes: number;
  /** Over HTTP: the body as the server sent it (gzipped where it gzips). */
  wireBytes?: number;
  commands: number;
}

export interface PeerBenchResult {
  backlog: Backlog;
  redisMemory: string;
  samples: number;
  timings: Record<Side, Sample[]>;
  cores: number;
  load: { start: number; end: number };
  seedS: number;
  /** The installed @bull-board/api. */
  boardVersion: string;
  /** Removing the backlog afterwards. */
  cleanupS: number;
  totalS: number;
}

/** Bull Board in its own process; resolves with its URL once it listens. */
function startBoard(redisPort: number, prefix: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = fork(CHILD, [JSON.stringify({ port: redisPort, prefix })], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const stop = () => closeChild(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`Bull Board's process exited with ${code}`)));
    child.once('message', (m) => resolve({ url: (m as { url: string }).url, stop }));
  });
}

/** What both answers must say: the seeded counts, summed over the queues. */
interface Totals {
  queues: number;
  prioritized: number;
  delayed: number;
  completed: number;
  failed: number;
}

function expectTotals(side: string, got: Totals, want: Totals): void {
  for (const k of Object.keys(want) as Array<keyof Totals>) {
    if (got[k] !== want[k]) throw new Error(`${side} answered ${got[k]} ${k}, the backlog holds ${want[k]}`);
  }
}

function oursTotals(o: Overview): Totals {
  const t = o.totals;
  return { queues: o.queues.length, prioritized: t.prioritized, delayed: t.delayed, completed: t.completed, failed: t.failed };
}

function theirsTotals(body: { queues: Array<{ counts: Record<string, number> }> }): Totals {
  const sum = (k: string) => body.queues.reduce((s, q) => s + (q.counts[k] ?? 0), 0);
  return {
    queues: body.queues.length,
    prioritized: sum('prioritized'),
    delayed: sum('delayed'),
    completed: sum('completed'),
    failed: sum('failed'),
  };
}

export async function runPeerBench(opts: { redis: EmbeddedRedis }): Promise<PeerBenchResult> {
  const jobs = envInt('BENCH_PEER_JOBS', 1_000_000);
  const n = envInt('BENCH_PEER_SAMPLES', 30);
  const nCold = envInt('BENCH_PEER_COLD', 5);
  const started = performance.now();
  const loadStart = loadavg()[0];
  const bullpen = makeBullpen(opts.redis, PREFIX);
  let dashboard: RunningDashboard | undefined;
  let board: Awaited<ReturnType<typeof startBoard>> | undefined;
  let result: Omit<PeerBenchResult, 'totalS' | 'cleanupS'>;
  try {
    await readyClient(bullpen.redis);
    const backlog = await seedBacklog(bullpen, jobs, (line) => console.log(`  ${line}`));
    const seedS = (performance.now() - started) / 1_000;
    const redisMemory = /used_memory_human:(\S+)/.exec(await bullpen.redis.info('memory'))?.[1] ?? 'unknown';
    console.log(`  seeded ${jobs.toLocaleString('en-US')} jobs in ${fmt(seedS, 0)} s (Redis holds ${redisMemory})`);
    const want: Totals = {
      queues: backlog.queues.length,
      prioritized: backlog.queues.reduce((s, q) => s + q.prioritized, 0),
      delayed: backlog.queues.reduce((s, q) => s + q.delayed, 0),
      completed: backlog.queues.reduce((s, q) => s + q.completed, 0),
      failed: backlog.queues.reduce((s, q) => s + q.failed, 0),
    };

    const build = await ensureBuild();
    if (build.unusable) throw new Error(`no usable dashboard build: ${build.unusable}`);
    dashboard = await startDashboard(bullpen, opts.redis.url);
    board = await startBoard(opts.redis.port, bullpen.keys.root);
    const d = dashboard;
    const b = board;

    /** Times `run` and counts the Redis commands it caused (the INFO reading the counter is one itself). */
    const measured = async <T>(run: () => Promise<T>): Promise<{ ms: number; commands: number; value: T }> => {
      const before = await redisCommands(bullpen);
      const t0 = performance.now();
      const value = await run();
      const ms = performance.now() - t0;
      const commands = (await redisCommands(bullpen)) - before - 1;
      return { ms, commands, value };
    };
    /** `measured` for a read that yields its JSON. */
    const timed = async (run: () => Promise<string>): Promise<Sample & { body: string }> => {
      const { ms, commands, value: body } = await measured(run);
      return { ms, bytes: Buffer.byteLength(body), commands, body };
    };
    // One keep-alive connection per side, as a tab keeps its connection, and a minimal client (raw-http.ts): the
    // time is request to the last byte of the body as the server sent it (gzipped where it gzips, as for a
    // browser). Decoding and checking the answer come after the timing: a client's work, not the server's.
    const connections = new Map<string, KeepAliveConnection>();
    const get = async (url: string, headers: Record<string, string>): Promise<Sample & { body: string }> => {
      const u = new URL(url);
      const connection = connections.get(u.host) ?? KeepAliveConnection.to(u);
      connections.set(u.host, connection);
      const request = getRequestTo(u, { accept: 'application/json', 'accept-encoding': 'gzip', ...headers });
      const { ms, commands, value: answer } = await measured(() => connection.send(request, { keep: true }));
      const raw = answer.body ?? Buffer.alloc(0);
      const body = (answer.headers?.['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
      if (answer.status !== 200) throw new Error(`GET ${url} answered ${answer.status}: ${body.slice(0, 200)}`);
      return { ms, commands, bytes: Buffer.byteLength(body), wireBytes: raw.length, body };
    };
    // Each side's read alone, in this process: no HTTP, no framework, no session; serialised as its route does.
    const adapters = new Map(bullpen.jobs.names.map((t) => [t, new BullMQAdapter(bullpen.queues.get(t))]));
    const boardRequest = { queues: adapters, uiConfig: {}, query: { page: 1, jobsPerPage: 10 }, params: {}, body: {}, headers: {} };
    // Our two timed reads (HTTP and in-process, each with its own caches) each come OURS_EVERY_MS after its previous one.
    const lastAt: Partial<Record<Side, number>> = {};
    const spaced = async (side: Side) => {
      const wait = (lastAt[side] ?? 0) + OURS_EVERY_MS - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      lastAt[side] = performance.now();
    };
    const measure: Record<Side, () => Promise<Sample & { body: string }>> = {
      ours: async () => {
        await spaced('ours');
        const s = await get(`${d.url}${OURS_PATH}`, { cookie: d.cookie });
        expectTotals('the overview', oursTotals(JSON.parse(s.body) as Overview), want);
        return s;
      },
      oursCached: async () => {
        const s = await get(`${d.url}${OURS_PATH}`, { cookie: d.cookie });
        expectTotals('the cached overview', oursTotals(JSON.parse(s.body) as Overview), want);
        return s;
      },
      oursCold: async () => {
        await new Promise((r) => setTimeout(r, COLD_AFTER_MS));
        const s = await get(`${d.url}${OURS_PATH}`, { cookie: d.cookie });
        expectTotals('the cold overview', oursTotals(JSON.parse(s.body) as Overview), want);
        return s;
      },
      theirs: async () => {
        const s = await get(`${b.url}${BOARD_PATH}`, {});
        expectTotals('Bull Board', theirsTotals(JSON.parse(s.body)), want);
        return s;
      },
      oursRead: async () => {
        await spaced('oursRead');
        const s = await timed(async () => JSON.stringify(await readOverview(bullpen, Date.now())));
        expectTotals('the overview read model', oursTotals(JSON.parse(s.body) as Overview), want);
        return s;
      },
      theirsRead: async () => {
        const s = await timed(async () => JSON.stringify((await queuesHandler(boardRequest)).body));
        expectTotals("Bull Board's handler", theirsTotals(JSON.parse(s.body)), want);
        return s;
      },
    };
    const timings: Record<Side, Sample[]> = { ours: [], oursCached: [], oursCold: [], theirs: [], oursRead: [], theirsRead: [] };
    for (let round = -WARMUP; round < n; round++) {
      // Ours first in even rounds, theirs first in odd ones; the cached repeat right after our fresh request.
      const order: Side[] =
        round % 2 === 0
          ? ['ours', 'oursCached', 'theirs', 'oursRead', 'theirsRead']
          : ['theirsRead', 'oursRead', 'theirs', 'ours', 'oursCached'];
      for (const side of order) {
        const { body: _, ...s } = await measure[side]();
        if (round >= 0) timings[side].push(s);
      }
    }
    // Alone at the end: a cold request needs the dashboard untouched for the watch window.
    for (let i = 0; i < nCold; i++) {
      const { body: _, ...s } = await measure.oursCold();
      timings.oursCold.push(s);
    }
    const m = (side: Side) => fmt(median(timings[side].map((s) => s.ms)), 1);
    console.log(
      `  median ms over HTTP: overview ${m('ours')} (again at once ${m('oursCached')}, cold ${m('oursCold')}), Bull Board ${m('theirs')}`,
    );
    console.log(`  median ms in-process: overview read ${m('oursRead')}, Bull Board handler ${m('theirsRead')}`);
    result = {
      backlog,
      redisMemory,
      samples: n,
      timings,
      cores: cpus().length,
      load: { start: loadStart, end: loadavg()[0] },
      seedS,
      boardVersion: boardVersion(),
    };
  } finally {
    await board?.stop();
    await dashboard?.stop();
  }
  // A million jobs would stay in the benchmark's Redis under the sections after this one.
  const t0 = performance.now();
  try {
    for (const type of bullpen.jobs.names) await bullpen.queues.get(type).obliterate({ force: true });
  } finally {
    await bullpen.close();
  }
  const cleanupS = (performance.now() - t0) / 1_000;
  console.log(`  removed the backlog in ${fmt(cleanupS, 1)} s`);
  return { ...result, cleanupS, totalS: (performance.now() - started) / 1_000 };
}

/** Its package.json is not in the package's exports: read from node_modules. */
function boardVersion(): string {
  const file = path.resolve(__dirname, '../../node_modules/@bull-board/api/package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

function stats(xs: number[]): { p50: number; p95: number } {
  const sorted = [...xs].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
}

export function peerSection(r: PeerBenchResult): string {
  const p50 = (side: Side) => stats(r.timings[side].map((s) => s.ms)).p50;
  const ratio = p50('ours') / p50('theirs');
  const row = (label: string, what: string, side: Side) => {
    const t = r.timings[side];
    const s = stats(t.map((x) => x.ms));
    const wire = t.map((x) => x.wireBytes).filter((x): x is number => x !== undefined);
    const kib = (xs: number[]) => fmt(median(xs) / 1_024, 1);
    return `| ${label} | ${what} | ${fmt(s.p50, 1)} | ${fmt(s.p95, 1)} | ${fmt(median(t.map((x) => x.commands)), 0)} | ${kib(t.map((x) => x.bytes))} | ${wire.length ? kib(wire) : '–'} | ${t.length} |`;
  };
  const q = r.backlog.queues;
  const sum = (k: 'prioritized' | 'delayed' | 'completed' | 'failed') => q.reduce((s, x) => s + x[k], 0).toLocaleString('en-US');
  return [
    '## Peer: the overview beside Bull Board',
    '',
    `Command: \`node --import tsx scripts/bench/index.ts peer\`. One Redis holding ${r.backlog.total.toLocaleString('en-US')} jobs over its ${q.length} queues, as a backlog`,
    `would spread (${q[0].type} the busiest with ${(q[0].prioritized + q[0].delayed).toLocaleString('en-US')} unfinished, then shares falling as 1/rank):`,
    `${sum('prioritized')} waiting (in BullMQ’s \`prioritized\` set: every Bullpen type has a default priority), ${sum('delayed')} delayed,`,
    `${sum('completed')} completed and ${sum('failed')} failed (what each queue’s retention keeps). Seeding took ${fmt(r.seedS, 0)} s: the waiting jobs`,
    'are clones, written by a Lua script, of a job the dispatcher sent (BullMQ’s hash and priority score; scripts/bench/peer-seed.ts),',
    'the delayed ones went through the dispatcher’s bulk path, the finished ones are clones of jobs run through the runtime;',
    `all read back through BullMQ. Redis then held ${r.redisMemory}.`,
    '',
    'What each side computes per request:',
    `- **Bullpen**, \`GET ${OURS_PATH}\` from the dashboard’s server (\`scripts/web-server.ts\`, Next.js behind it) with a signed-in`,
    '  viewer’s cookie, what the overview tab polls. While any tab polls the overview, the dashboard reads it again in the',
    `  background just before its ${fmt(LIVE_TTL_MS / 1_000, 1)} s lifetime ends (\`dashboard/live/live-cache.ts\`), and the server answers a poll from`,
    '  memory (`dashboard/live/live-fast-path.ts`): it checks the cookie (unsealed once per cookie, then remembered), asks Redis',
    '  whether the session is still open (every request) and reads the user (cached 1 s), then writes the JSON serialised and',
    '  gzipped once per read. A poll thus gets data at most 1.5 s old, as before, without waiting for the read. The read',
    `  itself — the in-process row — is for each of the ${q.length} queues its counts of the 7 states, the paused flag, its workers`,
    '  (one CLIENT LIST for all) and the last hour of per-minute completed and failed metrics; the pending dead letters; the',
    '  health status (PING, the workers of each queue from one more CLIENT LIST, the oldest waiting job of each queue and',
    '  priority band, the dead-letter count); totals and the summed throughput series. It runs once per ~1.2 s while anyone',
    '  polls, whatever the number of tabs, and not at all when nobody does.',
    `  Timed requests came ${fmt(OURS_EVERY_MS / 1_000, 0)} s apart, as one open tab polls (\`LIVE_REFETCH_MS\`); “again at once” is the same request`,
    `  right after; “cold” is a request after ${fmt(COLD_AFTER_MS / 1_000, 1)} s with no request at all (nobody watching: the read runs in the request,`,
    '  through Next.js’s route handler), taken alone after the interleaved rounds.',
    `- **Bull Board** (\`@bull-board/api\` + \`@bull-board/express\` ${r.boardVersion}, defaults, no authentication), \`GET ${BOARD_PATH}\``,
    '  from express in a process of its own — what its UI’s queue list polls with its default settings (every 5 s; no queue',
    `  open, so no \`activeQueue\` or \`status\`): for each of the ${q.length} queues its counts of the same 7 states, the paused flag, the`,
    '  global concurrency, the rate-limit TTL, the job-scheduler count and its workers (a CLIENT LIST per queue); no jobs. It',
    '  reads Redis on every request, for every tab.',
    '',
    `Both timed from the client over loopback, request to the last byte of the body, ${r.samples} samples each after ${WARMUP} warm-up rounds (cold: ${r.timings.oursCold.length}),`,
    'interleaved, the side going first alternating. The client asks for gzip as a browser does and keeps one keep-alive',
    'connection per side; it is a minimal HTTP/1.1 client (`scripts/bench/raw-http.ts`), so the time is the server’s and the',
    'wire’s rather than a client library’s. Each answer is then decoded and checked against the seeded counts, outside the timing',
    '(the dashboard gzips; Bull Board’s express, by default, does not). The in-process rows',
    'time each side’s read alone in the benchmark process (`readOverview`, 3 s apart as well, and Bull Board’s `queuesHandler`,',
    'each serialised to JSON): the part of the time that is Redis and mapping rather than the HTTP server, framework and session. Redis',
    'commands are the redis-server’s command counter across the request.',
    '',
    '| side | request | median ms | p95 ms | Redis commands | KiB of JSON | KiB sent | samples |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    row('Bullpen overview', `\`${OURS_PATH}\``, 'ours'),
    row('Bull Board', `\`${BOARD_PATH}\``, 'theirs'),
    row('Bullpen, again at once', `\`${OURS_PATH}\``, 'oursCached'),
    row('Bullpen, cold', `\`${OURS_PATH}\` after ${fmt(COLD_AFTER_MS / 1_000, 1)} s unpolled`, 'oursCold'),
    row('Bullpen, in-process', '`readOverview`', 'oursRead'),
    row('Bull Board, in-process', '`queuesHandler`', 'theirsRead'),
    '',
    `**Ratio of medians over HTTP, ours as a polling tab gets it / theirs: ${fmt(ratio, 2)}** (target ≤ ${fmt(TARGET, 1)}: ${ratio <= TARGET ? 'met' : '**not met**'}).`,
    `Cold, ours / theirs: ${fmt(p50('oursCold') / p50('theirs'), 2)}; in-process, our read / theirs: ${fmt(p50('oursRead') / p50('theirsRead'), 2)} — our read model does more`,
    'per read (the health status, the series) and is paid once per 1.2 s for every tab together rather than once per tab’s request.',
    '',
    `What this machine can and cannot show: both servers, Redis and the client share its ${r.cores} cores, one request at a time,`,
    'so each figure is one side’s own work with nothing else queued, on whatever the rest of the machine leaves (load',
    `average, 1 min: ${fmt(r.load.start, 2)} at the start, ${fmt(r.load.end, 2)} at the end). Both sides’ counts are O(1) per state, so the million`,
    'jobs cost memory, not time, to either. It does not show either side under many concurrent pollers, where Bullpen',
    'answers every poll from memory and Bull Board asks Redis again for each (the observer section loads our side that',
    `way). The section took ${fmt(r.totalS, 0)} s, removing the backlog afterwards ${fmt(r.cleanupS, 0)} s.`,
    '',
  ].join('\n');
}
