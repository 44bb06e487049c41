import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSearchStep } from '@/dashboard/queues/payload-search';
import { parseSearchStep, SEARCH_STEP_BYTES } from '@/dashboard/client/payload-search-params';
import type { Bullpen } from '@/lib/bullpen';
import { useTestRedis } from '../helpers/use-test-redis';

/*
 * Issue 21, item 1: a viewer's payload search with a value outside `[%w _.:@-]` made
 * Redis decode every job's JSON inside a script, 1,000 ids per call: with 1,000 jobs of
 * 75 KB one call held Redis for 2.2 s and every other client (workers included) waited.
 * Redis now only copies bytes, in bounded round trips, and the dashboard matches.
 */
// In a session of its own (setsid), so that it has its own autogroup: see MEASURED_NICE.
const server = useTestRedis({}, { ownProcessGroup: true });
let release = () => {};
beforeAll(() => {
  const pid = server.redis.child?.pid;
  if (!pid) throw new Error('the redis-server of this file was not started by it');
  release = guard(pid);
});
afterAll(() => release());

const JOBS = 1_000;
const PAYLOAD_BYTES = 75_000;
const T0 = 1_700_000_000_000;

/** Job i+1 finished at T0 + i; every 97th carries the text `needle/<i>` and `payload.code = "a=/"`. */
const marked = (i: number) => i % 97 === 13;

async function seed(b: Bullpen) {
  const queue = b.queues.get('tidy');
  await queue.waitUntilReady();
  // Varied text, so no job compresses into a trivial string and substring tests do real work.
  const words = Array.from({ length: 64 }, (_, k) => `w${k.toString(36)}${'abcdefgh'.slice(k % 8)}`);
  for (let start = 0; start < JOBS; start += 100) {
    const pipe = b.redis.pipeline();
    for (let i = start; i < start + 100; i++) {
      const parts: string[] = [];
      for (let n = 0, len = 0; len < PAYLOAD_BYTES; n++) {
        const w = words[(i * 31 + n * 7) % words.length];
        parts.push(w);
        len += w.length + 1;
      }
      const payload = { i, code: marked(i) ? 'a=/' : 'a=b', note: marked(i) ? `needle/${i}` : 'hay', text: parts.join(' ') };
      pipe.hset(queue.toKey(String(i + 1)), {
        name: 'tidy',
        data: JSON.stringify({ payload, tenant: { orgId: 'org-a' }, requestId: `r${i}`, dispatchedAt: T0 }),
        opts: '{}',
        timestamp: String(T0 + i),
        finishedOn: String(T0 + i),
        returnvalue: 'null',
      });
      pipe.zadd(queue.toKey('completed'), T0 + i, String(i + 1));
    }
    await pipe.exec();
  }
}

/** A whole search, step after step as the page runs it: the ids found and the steps taken. */
async function search(b: Bullpen, query: Record<string, string>) {
  const ids: string[] = [];
  const reads: number[] = [];
  for (let from = 0; ; ) {
    const parsed = parseSearchStep(new URLSearchParams({ state: 'completed', ...query, from: String(from) }));
    if (!parsed.ok) throw new Error(parsed.message);
    const s = await readSearchStep(b, 'tidy', parsed.params);
    ids.push(...s.jobs.map((j) => j.id));
    reads.push(s.scanned - from);
    if (s.done) return { ids, reads };
    from = s.scanned;
  }
}

/**
 * PINGs from another process (so the searches' own event loop cannot delay them), one
 * sent every 2 ms whether or not the last was answered, so a stall counts once per PING
 * it held up, not once; prints the latencies in ms as JSON when stdin closes, which it
 * does when this process ends in any way. A PING still unanswered 5 s later counts with
 * the time it waited, never dropped. It runs at MEASURED_NICE, as the Redis does.
 */
function pinger(port: number) {
  const code = `
    const { Redis } = require('ioredis');
    const r = new Redis({ port: ${port}, host: '127.0.0.1' });
    const out = []; const pending = new Set(); let timer;
    const ms = (t) => Number(process.hrtime.bigint() - t) / 1e6;
    process.stdin.on('end', async () => {
      clearInterval(timer);
      const until = Date.now() + 5000;
      while (pending.size > 0 && Date.now() < until) await new Promise((res) => setTimeout(res, 5));
      for (const p of pending) out.push(ms(p.t));
      // Exits once the pipe took it all (a large write to a pipe completes later).
      process.stdout.write(JSON.stringify(out) + '\\n', () => process.exit(0));
    });
    process.stdin.resume();
    r.ping().then(() => {
      process.stdout.write('ready\\n');
      timer = setInterval(() => {
        const p = { t: process.hrtime.bigint() };
        pending.add(p);
        r.ping().then(() => { out.push(ms(p.t)); pending.delete(p); });
      }, 2);
    });`;
  // Detached: a session, and so an autogroup, of its own (MEASURED_NICE).
  const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'inherit'], detached: true });
  const raised = raise(child.pid);
  let text = '';
  child.stdout.on('data', (d) => (text += String(d)));
  return {
    raised,
    ready: (async () => {
      while (!text.includes('ready\n')) await once(child.stdout, 'data');
    })(),
    async stop(): Promise<number[]> {
      child.stdin.end();
      await once(child, 'exit');
      return JSON.parse(text.trim().split('\n').pop() ?? '[]') as number[];
    },
  };
}

/**
 * Stops the file's redis-server if this process ends without its afterAll (a Ctrl-C, a
 * killed run): in a session of its own, the terminal's SIGINT no longer reaches it. A
 * detached shell deaf to SIGINT and SIGHUP waits for its stdin to close, which happens
 * when this process ends in any way or calls the returned function, then sends SIGTERM.
 */
function guard(pid: number): () => void {
  const shell = spawn('sh', ['-c', `trap '' INT HUP; cat > /dev/null; kill -TERM ${pid} 2>/dev/null`], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  shell.unref();
  return () => shell.stdin.end();
}

/**
 * The priority of the two processes whose timing the test reads: the file's redis-server
 * and the pinger, both started by this test. A PING's latency is Redis's answer plus how
 * soon the OS runs Redis and the pinger; at nice 0 on a CI machine whose two cores were held
 * by other test files' workers and redis-servers and a Stryker run, it reached 59.7 ms at
 * p99. Raised, they run when they are ready, and what remains is Redis's own delay: a Redis
 * kept busy by the searches is as busy at any priority, so the bound keeps its meaning.
 *
 * With autogroup scheduling (`kernel.sched_autogroup_enabled`, on in most distributions'
 * kernels and on the CI machine) a process's nice value only orders it within its session:
 * sessions share the CPU equally whatever their processes' nice. So each of the two runs in
 * a session of its own, whose autogroup is raised too (`/proc/<pid>/autogroup`). Measured
 * beside another session's load (load average 8): a PING's p99 was 25-38 ms at nice 0,
 * 57-106 ms at nice -10 alone, 2.5-3.0 ms with the autogroup raised.
 */
const MEASURED_NICE = -10;

/**
 * Redis's own time for any one command, in µs, above which SLOWLOG records it: docs/security.md
 * promises that no read a user can start holds Redis for more than a few milliseconds per
 * command. A search's commands take microseconds (an HGET of 75 KB about 3 µs); the decoding
 * script this replaced took 2.2 s per call.
 */
const COMMAND_BOUND_US = 10_000;

/**
 * Raises a process this test started, and its session's autogroup, to MEASURED_NICE; says
 * what it did, for the log. Raising needs root (CI runs as root); refused, the test still
 * measures, as exposed to other load as before.
 */
function raise(pid: number | undefined): string {
  if (pid === undefined) return 'no pid';
  try {
    os.setPriority(pid, MEASURED_NICE);
  } catch (e) {
    return `refused (${(e as NodeJS.ErrnoException).code})`;
  }
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(MEASURED_NICE));
    return `nice ${MEASURED_NICE}, autogroup ${MEASURED_NICE}`;
  } catch (e) {
    // No autogroup in this kernel: the nice value alone orders it among all processes.
    return `nice ${MEASURED_NICE}, autogroup ${(e as NodeJS.ErrnoException).code}`;
  }
}

/** The commands Redis ran and its own time for them in µs (INFO commandstats), PINGs left out (the pinger's). */
async function commandTime(b: Bullpen): Promise<{ calls: number; usec: number }> {
  const info = await b.redis.info('commandstats');
  let calls = 0;
  let usec = 0;
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    if (m[1] === 'ping') continue;
    calls += Number(m[2]);
    usec += Number(m[3]);
  }
  return { calls, usec };
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

describe('payload search bounds', () => {
  it('4 substring and 4 path=value searches over 1,000 jobs of 75 KB: no command holds Redis 10 ms, PING stays under 50 ms p99, and each finds every match', async () => {
    const bullpen = await server.readyBullpen();
    await seed(bullpen);
    const expected = Array.from({ length: JOBS }, (_, i) => i)
      .filter(marked)
      .reverse()
      .map((i) => String(i + 1));

    // The file's own redis-server (its pid as the server itself reports it): raised with the pinger.
    const redisPid = Number(/process_id:(\d+)/.exec(await bullpen.redis.info('server'))?.[1]);
    expect(redisPid).toBe(server.redis.child?.pid);
    const redisRaised = raise(redisPid);
    await bullpen.redis.config('SET', 'slowlog-log-slower-than', String(COMMAND_BOUND_US));
    await bullpen.redis.config('SET', 'slowlog-max-len', '1000');

    // The same PINGs for 2 s with no search: what the machine's own load costs, for the log.
    const idle = pinger(server.redis.port);
    await idle.ready;
    await new Promise((r) => setTimeout(r, 2_000));
    const base = await idle.stop();
    const ping = pinger(server.redis.port);
    await ping.ready;
    await bullpen.redis.slowlog('RESET');
    const before = await commandTime(bullpen);
    // The searches' own work (reading and decoding 600 MB) runs in the dashboard process, which
    // in production does not share Redis's core; here it does, so it yields to Redis and the
    // PINGs: the PINGs measure Redis.
    // Nice 10, not 19: at 19 it got about 1% of a core beside two busy loops (the load the
    // issue-22 drill adds) and never finished; at 10 it still yields to Redis but progresses.
    const ownNice = os.getPriority();
    os.setPriority(10);
    const started = performance.now();
    // Every search to its end, failed or not, before the PINGs stop: Redis's figures come first.
    const settled = await Promise.allSettled([
      ...Array.from({ length: 4 }, () => search(bullpen, { q: 'needle/' })),
      ...Array.from({ length: 4 }, () => search(bullpen, { match: 'payload.code=a=/' })),
    ]);
    const elapsed = performance.now() - started;
    try {
      // The worker process runs other files next; lowering a nice value again needs root.
      os.setPriority(ownNice);
    } catch {}
    const latencies = await ping.stop();
    const after = await commandTime(bullpen);
    const slow = (await bullpen.redis.slowlog('GET', 1000)) as [number, number, number, string[]][];
    const p99 = percentile(latencies, 99);
    const runs = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failed = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
    const steps = runs.reduce((n, r) => n + r.reads.length, 0) || 1;
    console.info(
      `idle PING p99=${percentile(base, 99).toFixed(2)} ms; 8 searches in ${Math.round(elapsed)} ms; PING n=${latencies.length} p50=${percentile(latencies, 50).toFixed(2)} ms p99=${p99.toFixed(2)} ms max=${Math.max(...latencies).toFixed(2)} ms; steps=${runs[0]?.reads.length}, ${failed.length} failed; ` +
        `Redis: ${after.calls - before.calls} commands, ${((after.usec - before.usec) / 1000).toFixed(1)} ms, ${((after.usec - before.usec) / steps / 1000).toFixed(2)} ms per step, ${slow.length} over ${COMMAND_BOUND_US / 1000} ms; ` +
        `redis ${redisRaised}; pinger ${ping.raised}`,
    );
    // Redis's own account: no command of the searches held it past the bound.
    expect(slow.map(([, , us, args]) => `${(us / 1000).toFixed(1)} ms: ${args.join(' ').slice(0, 120)}`)).toEqual([]);
    expect(latencies.length).toBeGreaterThan(100);
    expect(p99).toBeLessThan(50);
    if (failed.length > 0) throw failed[0];
    for (const run of runs) {
      expect(run.ids).toEqual(expected);
      // A step stops at SEARCH_STEP_BYTES of data, and the next resumes where it stopped: every id once.
      expect(run.reads.reduce((a, b) => a + b, 0)).toBe(JOBS);
      expect(Math.max(...run.reads)).toBeLessThanOrEqual(Math.ceil(SEARCH_STEP_BYTES / PAYLOAD_BYTES));
    }
    // 7 s on an idle 2-core machine; the limit is for a machine whose cores are held by others.
  }, 240_000);
});
