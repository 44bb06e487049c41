import { spawn } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
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
const server = useTestRedis();

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
 * it held up, not once; prints the latencies in ms as JSON when stdin closes.
 */
function pinger(port: number) {
  const code = `
    const { Redis } = require('ioredis');
    const r = new Redis({ port: ${port}, host: '127.0.0.1' });
    const out = []; let pending = 0;
    r.ping().then(() => {
      process.stdout.write('ready\\n');
      const timer = setInterval(() => {
        const t = process.hrtime.bigint();
        pending++;
        r.ping().then(() => { out.push(Number(process.hrtime.bigint() - t) / 1e6); pending--; });
      }, 2);
      process.stdin.on('end', async () => {
        clearInterval(timer);
        while (pending > 0) await new Promise((res) => setTimeout(res, 5));
        process.stdout.write(JSON.stringify(out) + '\\n');
        r.disconnect();
      });
      process.stdin.resume();
    });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  let text = '';
  child.stdout.on('data', (d) => (text += String(d)));
  return {
    ready: (async () => {
      while (!text.includes('ready\n')) await once(child.stdout, 'data');
    })(),
    async stop(): Promise<number[]> {
      child.stdin.end();
      await once(child, 'exit');
      return JSON.parse(text.split('\n')[1]) as number[];
    },
  };
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

describe('payload search bounds', () => {
  it('4 substring and 4 path=value searches over 1,000 jobs of 75 KB: PING stays under 50 ms p99, and each finds every match', async () => {
    const bullpen = await server.readyBullpen();
    await seed(bullpen);
    const expected = Array.from({ length: JOBS }, (_, i) => i)
      .filter(marked)
      .reverse()
      .map((i) => String(i + 1));

    // The same PINGs for 2 s with no search: what the machine's own load costs, for the log.
    const idle = pinger(server.redis.port);
    await idle.ready;
    await new Promise((r) => setTimeout(r, 2_000));
    const base = await idle.stop();
    const ping = pinger(server.redis.port);
    await ping.ready;
    // The searches' own work (reading and decoding 600 MB) runs in the dashboard process, which
    // in production does not share Redis's core; here it does, so it yields to Redis and the
    // PINGs (both started before, so they keep their priority): the PINGs measure Redis.
    // Nice 10, not 19: at 19 it got about 1% of a core beside two busy loops (the load the
    // issue-22 drill adds) and never finished; at 10 it still yields to Redis but progresses.
    os.setPriority(10);
    const started = performance.now();
    const runs = await Promise.all([
      ...Array.from({ length: 4 }, () => search(bullpen, { q: 'needle/' })),
      ...Array.from({ length: 4 }, () => search(bullpen, { match: 'payload.code=a=/' })),
    ]);
    const elapsed = performance.now() - started;
    const latencies = await ping.stop();
    const p99 = percentile(latencies, 99);
    console.info(
      `idle PING p99=${percentile(base, 99).toFixed(2)} ms; 8 searches in ${Math.round(elapsed)} ms; PING n=${latencies.length} p50=${percentile(latencies, 50).toFixed(2)} ms p99=${p99.toFixed(2)} ms max=${Math.max(...latencies).toFixed(2)} ms; steps=${runs[0].reads.length}`,
    );
    expect(latencies.length).toBeGreaterThan(100);
    expect(p99).toBeLessThan(50);
    for (const run of runs) {
      expect(run.ids).toEqual(expected);
      // A step stops at SEARCH_STEP_BYTES of data, and the next resumes where it stopped: every id once.
      expect(run.reads.reduce((a, b) => a + b, 0)).toBe(JOBS);
      expect(Math.max(...run.reads)).toBeLessThanOrEqual(Math.ceil(SEARCH_STEP_BYTES / PAYLOAD_BYTES));
    }
    // 7 s on an idle 2-core machine; the limit is for a machine whose cores are held by others.
  }, 240_000);
});
