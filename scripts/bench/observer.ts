/**
 * Observer-effect benchmark (issue 11, item 7): the runtime's jobs/s — the production
 * worker composition as the runtime benchmark runs it (runtime.ts) — with no dashboard
 * client, and with 50 signed-in clients each polling the overview and a queue page
 * every second, through the dashboard's production server on the same Redis and key
 * prefix as the worker. A third kind of round has the same clients poll a bare server
 * (observer-floor.ts) answering the same bytes from memory: what the polls cost the
 * machine whatever answers them. A fourth kind has the same clients hold the dashboard's
 * live stream open instead of polling (observer-streams.ts: 50 tabs streaming). Rounds cycle
 * through the four kinds after warm-ups, each cycle starting one kind later;
 * the figure is the median of each kind and their ratio (target: under 5% loss).
 *
 * The clients sign in through the real sign-in form (http-sign-in.ts), a few viewers
 * several times each, two sign-ins at a time, so the product's rate limiter and
 * password check run as they do for people. They poll from a child process of their
 * own (observer-clients.ts).
 *
 * Run alone: `node --import tsx scripts/bench/index.ts observer`. Smaller trial runs:
 * BENCH_OBSERVER_JOBS (jobs per round, default 30000), BENCH_OBSERVER_ROUNDS (measured
 * cycles of the three kinds, default 7), BENCH_OBSERVER_CLIENTS (default 50); BENCH_NO_BUILD=1 keeps a stale build.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { SignInService } from '@/dashboard/auth/sign-in';
import { LIVE_TTL_MS, LIVE_WATCH_MS } from '@/dashboard/live/live-cache';
import { readyClient } from '@/lib/redis/connection';
import type { EmbeddedRedis } from '@/lib/redis/embedded-server';
import { closeChild } from './child';
import { machineStealSeconds, ownCpuSeconds, processCpuSeconds, processRssBytes, redisCommands, redisCpuSeconds } from './cpu-time';
import { ensureBuild, startDashboard } from './dashboard-next';
import { signInOverHttp } from './http-sign-in';
import { getRequestTo, KeepAliveConnection } from './raw-http';
import type { ClientsReport } from './observer-clients';
import type { StreamsReport } from './observer-streams';
import { bullpenRunner, makeBullpen, throughput } from './runtime';
import { fmt, median, percentile, envInt } from './stats';

const PREFIX = 'bench-observer';
const TYPE = 'webhook-dispatch' as const;
const PERIOD_MS = 1_000;
/** The clients are this many viewers, each signed in several times (tabs on a few people's machines). */
const VIEWERS = 10;
const TARGET_LOSS = 0.05;
/** Length of each idle window (no worker), after a second for the clients to settle. */
const IDLE_MS = 5_000;
/**
 * After its last poll the dashboard keeps the polled keys fresh for the watch window
 * (dashboard/live/live-cache.ts): a round of another kind waits this long after a
 * dashboard round, so it does not carry the dashboard's background reads.
 */
const COOL_DOWN_MS = LIVE_WATCH_MS + LIVE_TTL_MS + 500;
const CHILD = path.join(__dirname, 'observer-clients.ts');
const STREAMS = path.join(__dirname, 'observer-streams.ts');
/** Open streams of the memory and CPU measurement, and the seconds it is measured over. */
const MANY_STREAMS = 500;
const MANY_STREAMS_S = 10;
/** A user holds at most 16 streams (dashboard/live/live-hub.ts): the many streams' users, each signed in once. */
const STREAMS_PER_USER = 16;
const FLOOR = path.join(__dirname, 'observer-floor.ts');
/** What a tab on each page polls: the live routes its refetch calls (dashboard/client/query-keys.ts). */
const PATHS = { overview: '/api/live/overview', queue: `/api/live/queues/${TYPE}?state=prioritized` } as const;

type Runner = Parameters<typeof throughput>[0];

/** Cores used over a round's run, by process: seconds of CPU per second of wall time. */
export interface CpuShare {
  worker: number;
  redis: number;
  dashboard?: number;
  clients?: number;
  /** CPU the hypervisor gave other guests over the round, in cores of this machine (NaN where /proc cannot tell). */
  steal?: number;
}

/** What the clients do in a round: nothing (no clients), poll the dashboard, hold its live stream open, or poll the bare server (observer-floor.ts). */
export type PollTarget = 'none' | 'dashboard' | 'stream' | 'floor';

export interface ObserverRound {
  target: PollTarget;
  clients: number;
  jobsPerSec: number;
  cpu: CpuShare;
  /** Redis commands per second during the run. */
  redisOps: number;
}

export interface ObserverBenchResult {
  jobs: number;
  clients: number;
  viewers: number;
  rounds: ObserverRound[];
  warmup: ObserverRound[];
  /** The worker stopped: what the clients alone cost, against the same window without them. */
  idle: { quiet: ObserverRound; busy: ObserverRound; seconds: number };
  /** Over every request of the measured client rounds, by path. */
  responses: Record<string, { p50: number; p95: number; count: number }>;
  failures: number;
  lateTicks: number;
  /** Time the clients polled in the measured rounds (fill and run), and the ticks they started in it. */
  clientSeconds: number;
  clientTicks: number;
  signInMs: number;
  /** Over the streaming rounds: the events the tabs received, per stream per second. */
  streamEvents: { events: number; seconds: number; streams: number };
  /** The dashboard with MANY_STREAMS open streams and the worker stopped, against the same window without them. */
  many: { streams: number; seconds: number; cpuIdle: number; cpuOpen: number; rssIdle: number; rssOpen: number; events: number };
  cores: number;
  load: { start: number; end: number };
  totalS: number;
}

/**
 * A client process of the section (tsx, its arguments as JSON), and its next IPC message as a
 * promise that fails if the process exits first: each command it is sent is answered by one.
 */
function forkWithMessages(script: string, args: unknown, what: string) {
  const child: ChildProcess = fork(script, [JSON.stringify(args)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const nextMessage = () =>
    new Promise<unknown>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`${what} exited with ${code}`));
      child.once('exit', onExit);
      child.once('message', (m) => {
        child.off('exit', onExit);
        resolve(m);
      });
    });
  return { child, nextMessage };
}

/** The polling clients' process: started once, told to start and stop with each client round. */
function startClients(args: { url: string; cookies: string[]; paths: string[]; periodMs: number }) {
  const { child, nextMessage } = forkWithMessages(CHILD, args, "the clients' process");
  const ready = nextMessage();
  return {
    pid: child.pid,
    ready,
    start: () => child.send('start'),
    async stop(): Promise<ClientsReport> {
      const report = nextMessage();
      child.send('stop');
      return (await report) as ClientsReport;
    },
    close: () => closeChild(child),
  };
}

/** The streaming clients' process (observer-streams.ts): told to open n streams and to close them. */
function startStreams(args: { url: string; cookies: string[]; subjects: string[] }) {
  const { child, nextMessage } = forkWithMessages(STREAMS, args, "the streams' process");
  const ready = nextMessage();
  return {
    pid: child.pid,
    ready,
    async open(n: number): Promise<number> {
      const opened = nextMessage();
      child.send({ open: n });
      return ((await opened) as { opened: number }).opened;
    },
    async stop(): Promise<StreamsReport> {
      const report = nextMessage();
      child.send('stop');
      return (await report) as StreamsReport;
    },
    close: () => closeChild(child),
  };
}

/** The bare server of the floor rounds, answering each path with `bodies`; resolves once it listens. */
function startFloor(bodies: Record<string, Buffer>): Promise<{ url: string; pid: number | undefined; close(): Promise<void> }> {
  const child: ChildProcess = fork(FLOOR, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const close = () => closeChild(child);
  child.send({ bodies: Object.fromEntries(Object.entries(bodies).map(([k, b]) => [k, b.toString('base64')])) });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bare server's process exited with ${code}`)));
    child.once('message', (m) => resolve({ url: (m as { url: string }).url, pid: child.pid, close }));
  });
}

/** What the dashboard answers a signed-in client for `path`, gzipped as a browser asks for it. */
async function gzippedAnswer(url: string, cookie: string): Promise<Buffer> {
  const u = new URL(url);
  const connection = KeepAliveConnection.to(u);
  try {
    const request = getRequestTo(u, { cookie, accept: 'application/json', 'accept-encoding': 'gzip' });
    const answer = await connection.send(request, { keep: true });
    if (answer.status !== 200) throw new Error(`GET ${url} answered ${answer.status}`);
    const body = answer.body ?? Buffer.alloc(0);
    return answer.headers?.['content-encoding'] === 'gzip' ? body : gzipSync(body);
  } finally {
    connection.close();
  }
}

/** A runner that notes the CPU and Redis counters when the worker starts and after it stops. */
function metered(inner: Runner, read: () => Promise<number[]>): { runner: Runner; result: () => number[] } {
  let before: number[] = [];
  let after: number[] = [];
  return {
    runner: {
      async start(onJob) {
        before = [performance.now() / 1_000, ...(await read())];
        await inner.start(onJob);
      },
      async stop() {
        await inner.stop();
        after = [performance.now() / 1_000, ...(await read())];
      },
    },
    result: () => after.map((a, i) => a - before[i]),
  };
}

export async function runObserverBench(opts: { redis: EmbeddedRedis }): Promise<ObserverBenchResult> {
  const jobs = envInt('BENCH_OBSERVER_JOBS', 30_000);
  const pairs = envInt('BENCH_OBSERVER_ROUNDS', 7);
  const clients = envInt('BENCH_OBSERVER_CLIENTS', 50);
  const started = performance.now();
  const loadStart = loadavg()[0];
  const bullpen = makeBullpen(opts.redis, PREFIX);
  await readyClient(bullpen.redis);
  const build = await ensureBuild();
  if (build.unusable) throw new Error(`no usable dashboard build: ${build.unusable}`);
  const dashboard = await startDashboard(bullpen, opts.redis.url);
  const pollers: Array<ReturnType<typeof startClients>> = [];
  let streamer: ReturnType<typeof startStreams> | undefined;
  let floor: Awaited<ReturnType<typeof startFloor>> | undefined;
  try {
    // A few viewers, each signed in several times through the form.
    const auth = new SignInService(bullpen.redis, bullpen.keys);
    const viewers = Array.from({ length: Math.min(VIEWERS, clients) }, (_, i) => ({
      username: `observer-${i}`,
      password: randomBytes(18).toString('base64url'),
    }));
    for (const v of viewers) await auth.users.create({ ...v, role: 'viewer' });
    const t0 = performance.now();
    const cookies: string[] = new Array(clients);
    let nextSignIn = 0;
    const signInLane = async () => {
      while (nextSignIn < clients) {
        const i = nextSignIn++;
        const v = viewers[i % viewers.length];
        cookies[i] = await signInOverHttp(dashboard.url, v.username, v.password);
      }
    };
    // Two at a time: the sign-in checks at most two passwords at once per process (dashboard/auth/sign-in.ts).
    await Promise.all([signInLane(), signInLane()]);
    const signInMs = performance.now() - t0;
    console.log(`  ${clients} sessions of ${viewers.length} viewers signed in through the form in ${fmt(signInMs / 1_000, 1)} s`);

    const p = startClients({ url: dashboard.url, cookies, paths: Object.values(PATHS), periodMs: PERIOD_MS });
    pollers.push(p);
    await p.ready;
    // The same tabs, streaming what they would poll.
    streamer = startStreams({ url: dashboard.url, cookies, subjects: Object.values(PATHS) });
    await streamer.ready;
    const streamEvents = { events: 0, seconds: 0, streams: 0 };
    const queue = bullpen.queues.get(TYPE);
    const samples: Record<string, number[]> = {};
    let failures = 0;
    let lateTicks = 0;
    let clientSeconds = 0;
    let clientTicks = 0;
    /** Who serves each kind of round, and whose clients poll it; the floor's are added after the warm-up. */
    const servers: Partial<Record<PollTarget, { pid: number | undefined; clients: ReturnType<typeof startClients> }>> = {
      dashboard: { pid: dashboard.pid, clients: p },
    };

    const serverOf = (target: PollTarget) => (target === 'none' || target === 'stream' ? 'dashboard' : target);
    const read = (target: PollTarget) => async () => [
      ownCpuSeconds(),
      await redisCpuSeconds(bullpen),
      // With nobody polling, the dashboard still runs beside the worker: its idle cost is shown too.
      processCpuSeconds(servers[serverOf(target)]?.pid) ?? NaN,
      processCpuSeconds(target === 'stream' ? streamer?.pid : servers[serverOf(target)]?.clients.pid) ?? NaN,
      await redisCommands(bullpen),
      machineStealSeconds(),
    ];
    /** Stops the clients; keeps their response times when `keep` (the dashboard rounds with the worker running). */
    const collect = async (c: ReturnType<typeof startClients>, keep: boolean) => {
      const report = await c.stop();
      if (keep) {
        for (const [k, xs] of Object.entries(report.samples)) samples[k] = [...(samples[k] ?? []), ...xs];
        clientTicks += report.ticks;
        clientSeconds += report.seconds;
        lateTicks += report.lateTicks;
      }
      failures += report.failures;
      if (report.failures) throw new Error(`${report.failures} client requests failed: ${report.reasons.join('; ')}`);
    };
    /** Counter differences (wall time first) as cores and commands per second. */
    const toRound = (
      target: PollTarget,
      jobsPerSec: number,
      [wall, worker, redis, dash, cli, commands, steal]: number[],
    ): ObserverRound => {
      const share = (s: number) => (Number.isFinite(s) ? s / wall : undefined);
      return {
        target,
        clients: target === 'none' ? 0 : clients,
        jobsPerSec,
        cpu: { worker: worker / wall, redis: redis / wall, dashboard: share(dash), clients: share(cli), steal: share(steal) },
        redisOps: commands / wall,
      };
    };
    let dashboardPolledAt = Number.NEGATIVE_INFINITY;
    // The streaming tabs keep the same reads fresh as the polling ones: no wait between those two kinds.
    const readsDashboard = (target: PollTarget) => target === 'dashboard' || target === 'stream';
    const coolDown = async (target: PollTarget) => {
      if (readsDashboard(target)) return;
      const wait = dashboardPolledAt + COOL_DOWN_MS - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    };
    const round = async (target: PollTarget): Promise<ObserverRound> => {
      await coolDown(target);
      if (target === 'stream') {
        const opened = await streamer!.open(clients);
        if (opened !== clients) throw new Error(`${clients - opened} of ${clients} streams did not open`);
      }
      const m = metered(bullpenRunner(opts.redis, PREFIX), read(target));
      const polling = target === 'stream' ? undefined : servers[target]?.clients;
      polling?.start();
      // No settle: the round's cores are metered from the worker's start to its stop, idle included.
      const jobsPerSec = await throughput(m.runner, queue, jobs, {}, { settleMs: 0 });
      if (polling) await collect(polling, target === 'dashboard');
      if (target === 'stream') {
        const report = await streamer!.stop();
        if (report.failures) throw new Error(`${report.failures} streams failed: ${report.reasons.join('; ')}`);
        streamEvents.events += report.events;
        streamEvents.seconds += report.seconds;
        streamEvents.streams = report.streams;
      }
      if (readsDashboard(target)) dashboardPolledAt = performance.now();
      return toRound(target, jobsPerSec, m.result());
    };
    const idleWindow = async (target: PollTarget): Promise<ObserverRound> => {
      await coolDown(target);
      const polling = servers[target]?.clients;
      polling?.start();
      await new Promise((r) => setTimeout(r, 1_000));
      const before = [performance.now() / 1_000, ...(await read(target)())];
      await new Promise((r) => setTimeout(r, IDLE_MS));
      const after = [performance.now() / 1_000, ...(await read(target)())];
      if (polling) await collect(polling, false);
      return toRound(
        target,
        0,
        after.map((a, i) => a - before[i]),
      );
    };
    const LABEL: Record<PollTarget, string> = {
      none: 'no clients     ',
      dashboard: 'the dashboard  ',
      stream: 'its live stream',
      floor: 'the bare server',
    };
    const show = (r: ObserverRound, label: string) =>
      console.log(
        `  ${label} ${r.clients} clients on ${LABEL[r.target]}: ${fmt(r.jobsPerSec, 0)} jobs/s (cores: worker ${fmt(r.cpu.worker, 2)}, redis ${fmt(r.cpu.redis, 2)}, server ${fmt(r.cpu.dashboard ?? NaN, 2)}, clients ${fmt(r.cpu.clients ?? NaN, 2)}, steal ${fmt(r.cpu.steal ?? NaN, 2)})`,
      );

    const warmup: ObserverRound[] = [];
    for (const target of ['none', 'dashboard', 'stream'] as const) {
      const r = await round(target);
      warmup.push(r);
      show(r, 'warm-up ');
    }
    // The floor's server answers with the bytes the dashboard answers now, and its own clients poll it.
    const bodies: Record<string, Buffer> = {};
    for (const path of Object.values(PATHS)) bodies[path] = await gzippedAnswer(`${dashboard.url}${path}`, cookies[0]);
    floor = await startFloor(bodies);
    const pf = startClients({ url: floor.url, cookies, paths: Object.values(PATHS), periodMs: PERIOD_MS });
    pollers.push(pf);
    await pf.ready;
    servers.floor = { pid: floor.pid, clients: pf };
    const fw = await round('floor');
    warmup.push(fw);
    show(fw, 'warm-up ');
    // The warm-up's samples include each route's first requests: not counted.
    for (const k of Object.keys(samples)) delete samples[k];
    lateTicks = 0;
    clientSeconds = 0;
    clientTicks = 0;
    Object.assign(streamEvents, { events: 0, seconds: 0 });
    const rounds: ObserverRound[] = [];
    // Each cycle starts one kind later than the one before, so a drift of the machine's speed over the section
    // (other tenants, Redis's memory) does not always favour the same kind.
    const kinds: PollTarget[] = ['none', 'dashboard', 'stream', 'floor'];
    for (let i = 0; i < kinds.length * pairs; i++) {
      const cycle = Math.floor(i / kinds.length);
      const r = await round(kinds[(i + cycle) % kinds.length]);
      rounds.push(r);
      show(r, `round ${String(i + 1).padStart(2)}`);
    }
    const idle = { quiet: await idleWindow('none'), busy: await idleWindow('dashboard'), seconds: IDLE_MS / 1_000 };
    console.log(
      `  worker stopped: Redis ${fmt(idle.quiet.redisOps, 0)} → ${fmt(idle.busy.redisOps, 0)} commands/s, dashboard ${fmt(idle.busy.cpu.dashboard ?? NaN, 2)} cores with the clients`,
    );
    const many = await manyStreams(bullpen, dashboard, Object.values(PATHS));
    console.log(
      `  ${many.streams} open streams, worker stopped: dashboard ${fmt(many.cpuIdle, 3)} → ${fmt(many.cpuOpen, 3)} cores, RSS ${fmt(many.rssIdle / 2 ** 20, 0)} → ${fmt(many.rssOpen / 2 ** 20, 0)} MiB`,
    );
    const responses: ObserverBenchResult['responses'] = {};
    for (const [k, xs] of Object.entries(samples)) {
      const sorted = [...xs].sort((a, b) => a - b);
      responses[k] = { p50: percentile(sorted, 50), p95: percentile(sorted, 95), count: sorted.length };
    }
    return {
      jobs,
      clients,
      viewers: viewers.length,
      rounds,
      warmup,
      idle,
      responses,
      failures,
      lateTicks,
      clientSeconds,
      clientTicks,
      signInMs,
      streamEvents,
      many,
      cores: cpus().length,
      load: { start: loadStart, end: loadavg()[0] },
      totalS: (performance.now() - started) / 1_000,
    };
  } finally {
    for (const c of pollers) await c.close();
    await streamer?.close();
    await floor?.close();
    await dashboard.stop();
    await bullpen.queues.get(TYPE).obliterate({ force: true });
    await bullpen.close();
  }
}

/**
 * The dashboard's CPU and memory with MANY_STREAMS tabs streaming the overview and a queue
 * page, the worker stopped: MANY_STREAMS_S seconds without them, then as long with them open.
 * They are the streams of viewers signed in once each, at most STREAMS_PER_USER streams per viewer.
 */
async function manyStreams(
  bullpen: ReturnType<typeof makeBullpen>,
  dashboard: { url: string; pid: number | undefined },
  subjects: string[],
): Promise<ObserverBenchResult['many']> {
  const auth = new SignInService(bullpen.redis, bullpen.keys);
  const users = Math.ceil(MANY_STREAMS / STREAMS_PER_USER);
  const cookies: string[] = [];
  for (let i = 0; i < users; i++) {
    const v = { username: `observer-stream-${i}`, password: randomBytes(18).toString('base64url') };
    await auth.users.create({ ...v, role: 'viewer' });
    cookies.push(await signInOverHttp(dashboard.url, v.username, v.password));
  }
  const window = async () => {
    const cpu0 = processCpuSeconds(dashboard.pid) ?? NaN;
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, MANY_STREAMS_S * 1_000));
    return {
      cpu: ((processCpuSeconds(dashboard.pid) ?? NaN) - cpu0) / ((performance.now() - t0) / 1_000),
      rss: processRssBytes(dashboard.pid) ?? NaN,
    };
  };
  const idle = await window();
  const s = startStreams({ url: dashboard.url, cookies, subjects });
  try {
    await s.ready;
    const opened = await s.open(MANY_STREAMS);
    if (opened !== MANY_STREAMS) throw new Error(`${MANY_STREAMS - opened} of ${MANY_STREAMS} streams did not open`);
    await new Promise((r) => setTimeout(r, 1_000));
    const open = await window();
    const report = await s.stop();
    if (report.failures) throw new Error(`${report.failures} streams failed: ${report.reasons.join('; ')}`);
    return {
      streams: MANY_STREAMS,
      seconds: MANY_STREAMS_S,
      cpuIdle: idle.cpu,
      cpuOpen: open.cpu,
      rssIdle: idle.rss,
      rssOpen: open.rss,
      events: report.events,
    };
  } finally {
    await s.close();
  }
}

const medianOf = (rounds: ObserverRound[], f: (r: ObserverRound) => number | undefined) =>
  median(rounds.map(f).filter((x): x is number => x !== undefined && Number.isFinite(x)));

export function observerSection(r: ObserverBenchResult): string {
  const of = (t: PollTarget) => r.rounds.filter((x) => x.target === t);
  const quiet = of('none');
  const busy = of('dashboard');
  const bare = of('floor');
  const streaming = of('stream');
  const st = medianOf(streaming, (x) => x.jobsPerSec);
  const streamLoss = 1 - st / medianOf(quiet, (x) => x.jobsPerSec);
  const q = medianOf(quiet, (x) => x.jobsPerSec);
  const b = medianOf(busy, (x) => x.jobsPerSec);
  const f = medianOf(bare, (x) => x.jobsPerSec);
  const ratio = b / q;
  const loss = 1 - ratio;
  const floorLoss = 1 - f / q;
  const cores = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '–' : fmt(x, 2));
  const polled: Record<PollTarget, string> = { none: '–', dashboard: 'the dashboard', stream: 'its live stream', floor: 'bare server' };
  const rows = r.rounds.map(
    (x, i) =>
      `| ${i + 1} | ${polled[x.target]} | ${x.clients} | ${fmt(x.jobsPerSec, 0)} | ${cores(x.cpu.worker)} | ${cores(x.cpu.redis)} | ${cores(x.cpu.dashboard)} | ${cores(x.cpu.clients)} | ${cores(x.cpu.steal)} |`,
  );
  const resp = (key: keyof typeof PATHS) => {
    const s = r.responses[PATHS[key]];
    return s
      ? `| \`${PATHS[key]}\` | ${fmt(s.p50, 1)} | ${fmt(s.p95, 1)} | ${s.count.toLocaleString('en-US')} |`
      : `| \`${PATHS[key]}\` | – | – | 0 |`;
  };
  const med = (rounds: ObserverRound[], f: (x: ObserverRound) => number | undefined) => cores(medianOf(rounds, f));
  const perViewer = Math.ceil(r.clients / r.viewers);
  const { quiet: iq, busy: ib } = r.idle;
  const mib = (b: number) => fmt(b / 2 ** 20, 0);
  const perStream =
    r.streamEvents.streams && r.streamEvents.seconds ? r.streamEvents.events / r.streamEvents.seconds / r.streamEvents.streams : NaN;
  return [
    '## Observer effect: the runtime with dashboard clients polling',
    '',
    'Command: `node --import tsx scripts/bench/index.ts observer`. The worker is the runtime benchmark’s Bullpen side (the',
    `production worker process, \`WORKER_TYPES=${TYPE}\`, no-op handler, concurrency 50), ${r.jobs.toLocaleString('en-US')} jobs pre-filled per round.`,
    'The dashboard is its production server (`scripts/web-server.ts`: Next.js, with polls of live routes answered from the',
    'live cache, `dashboard/live/live-fast-path.ts`) on the same Redis and key prefix. In the dashboard rounds',
    `${r.clients} clients — ${r.viewers} viewers, each signed in ${perViewer} time${perViewer === 1 ? '' : 's'} through the sign-in form, so the rate limiter and password`,
    `check run as for people — each GET \`${PATHS.overview}\` and \`${PATHS.queue}\` once a second, what an`,
    'open overview tab and an open queue tab poll, over a keep-alive connection each, asking for gzip as a browser does, from a',
    'process of their own (`observer-clients.ts`, sending requests prepared once over node:net, `raw-http.ts`: they stand in',
    'for browsers on other machines, and node:http’s client cost as much CPU per poll as the server). In the bare-server rounds the same clients poll a bare node:http',
    'server (`observer-floor.ts`) that answers the same paths with the bytes the dashboard answered, from memory, with no',
    'session check and no read: the least any Node.js server can do for these polls. In the live-stream rounds ("50 tabs',
    'streaming") the same clients instead each hold one `GET /api/live/stream` open for both URLs (`observer-streams.ts`),',
    'which the dashboard’s one reader pushes to them once a second when they change (dashboard/live/live-hub.ts). Warm-up rounds run first and are not',
    `counted; the rounds then cycle through no clients, the dashboard polled, its live stream and the bare server ${r.rounds.length / 4} times, each cycle starting one kind`,
    'later than the one before (so a drift in the machine’s speed does not favour one kind). A round of another kind waits',
    `${fmt(COOL_DOWN_MS / 1_000, 1)} s after a dashboard round, until the dashboard has stopped keeping the polled reads fresh. Cores: CPU seconds per second of a`,
    'round’s run (worker start to stop), by process; the worker’s figure is the benchmark process, in which the worker runs;',
    '“server” is the dashboard or the bare server, whichever the clients poll (the idle dashboard in rounds without clients);',
    '“stolen” is the CPU the hypervisor gave other guests while this machine wanted it (steal time in /proc/stat).',
    '',
    '| round | polled | clients | jobs/s | cores: worker | Redis | server | clients | stolen |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `**Median: ${fmt(b, 0)} jobs/s with ${r.clients} clients polling the dashboard, ${fmt(q, 0)} without; ratio ${fmt(ratio, 3)}, ${fmt(loss * 100, 1)}% loss** (target under ${fmt(TARGET_LOSS * 100, 0)}%: ${loss < TARGET_LOSS ? 'met' : '**not met**'}).`,
    `With the same clients polling the bare server: ${fmt(f, 0)} jobs/s, ${fmt(floorLoss * 100, 1)}% loss — what the polls cost this machine whatever answers them.`,
    `**${r.clients} tabs streaming: ${fmt(st, 0)} jobs/s, ${fmt(streamLoss * 100, 1)}% loss** (target: no more than the bare server’s ${fmt(floorLoss * 100, 1)}%: ${streamLoss <= floorLoss ? 'met' : '**not met**'});`,
    `each stream received ${fmt(perStream, 2)} pushed values a second (the queue page’s and the overview’s, when they changed).`,
    `Medians in cores with the tabs streaming: the worker ${med(streaming, (x) => x.cpu.worker)}, Redis ${med(streaming, (x) => x.cpu.redis)}, the dashboard ${med(streaming, (x) => x.cpu.dashboard)}, the clients ${med(streaming, (x) => x.cpu.clients)}.`,
    `Medians in cores, without clients / dashboard / bare server: the worker ${med(quiet, (x) => x.cpu.worker)} / ${med(busy, (x) => x.cpu.worker)} / ${med(bare, (x) => x.cpu.worker)},`,
    `Redis ${med(quiet, (x) => x.cpu.redis)} / ${med(busy, (x) => x.cpu.redis)} / ${med(bare, (x) => x.cpu.redis)}, the server polled ${med(busy, (x) => x.cpu.dashboard)} (dashboard) / ${med(bare, (x) => x.cpu.dashboard)} (bare),`,
    `the clients ${med(busy, (x) => x.cpu.clients)} / ${med(bare, (x) => x.cpu.clients)}; taken by the hypervisor (steal time) ${med(quiet, (x) => x.cpu.steal)} / ${med(busy, (x) => x.cpu.steal)} / ${med(bare, (x) => x.cpu.steal)}`,
    `(most in one round: ${cores(Math.max(...r.rounds.map((x) => x.cpu.steal ?? 0)))}).`,
    '',
    `The clients’ response times from the dashboard over the measured rounds, ${fmt(r.clientSeconds, 0)} s of polling (ms). ${r.clients} clients at one tick a`,
    `second would start ${fmt((r.clients * 1_000) / PERIOD_MS, 0)} ticks/s; they started ${fmt(r.clientTicks / r.clientSeconds, 1)} (${r.lateTicks} ticks late, the previous answer still awaited),`,
    `each GETting both paths; ${r.failures} requests failed.`,
    '',
    '| path | p50 | p95 | requests |',
    '|---|---:|---:|---:|',
    resp('overview'),
    resp('queue'),
    '',
    `What the clients cost with the worker stopped (${r.idle.seconds} s without them, then ${r.idle.seconds} s with them polling the dashboard): Redis`,
    `${fmt(iq.redisOps, 0)} → ${fmt(ib.redisOps, 0)} commands/s and ${fmt(iq.cpu.redis, 3)} → ${fmt(ib.cpu.redis, 3)} cores; the dashboard ${cores(iq.cpu.dashboard)} → ${cores(ib.cpu.dashboard)} cores; the`,
    `clients’ own process ${cores(ib.cpu.clients)} cores.`,
    '',
    `**${r.many.streams} open streams** (the same two URLs; ${Math.ceil(r.many.streams / STREAMS_PER_USER)} viewers signed in once each, at most ${STREAMS_PER_USER} streams each), the worker stopped, ${r.many.seconds} s`,
    `without them, then ${r.many.seconds} s with them open: the dashboard ${fmt(r.many.cpuIdle, 3)} → ${fmt(r.many.cpuOpen, 3)} cores, resident memory ${mib(r.many.rssIdle)} → ${mib(r.many.rssOpen)} MiB`,
    `(${fmt((r.many.rssOpen - r.many.rssIdle) / r.many.streams / 1024, 1)} KiB a stream); the streams received ${r.many.events.toLocaleString('en-US')} pushed values in all.`,
    '',
    `What this machine can and cannot show: it has ${r.cores} cores, and the worker, redis-server, the server polled and the`,
    'clients all run on them, the worker and Redis already using nearly both. Every CPU second the server and the clients',
    'spend is taken from the worker and Redis, so the loss is the price of sharing the cores, not of the dashboard’s reads',
    'reaching the worker through Redis; the bare-server rounds show what that sharing alone costs, with a server that reads',
    'nothing. With the dashboard and its users’ browsers on machines of their own only the dashboard’s Redis commands, the',
    'figures just above, reach the worker; this machine cannot measure that case, since it has no core to give them.',
    `Load average (1 min) ${fmt(r.load.start, 2)} at the start, ${fmt(r.load.end, 2)} at the end; the section took ${fmt(r.totalS, 0)} s, of which the`,
    `${r.clients} sign-ins ${fmt(r.signInMs / 1_000, 1)} s.`,
    '',
  ].join('\n');
}
