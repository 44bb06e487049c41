import { spawn } from 'node:child_process';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailerApp } from '@/examples/mailer/app';
import type { Bullpen } from '@/lib/bullpen';
import { DEFAULT_MAX_PAYLOAD_BYTES } from '@/lib/jobs/payload-limit';
import { DLQ_COMMAND } from '../helpers/dlq-command';
import { useTestRedis } from '../helpers/use-test-redis';

const ROOT = path.resolve(__dirname, '../..');
/** A limit raised to 16 MiB, so that reading a letter whole would show in a process's peak. */
const RAISED_LIMIT = 16 * 1024 * 1024;
/** Issue 22's bound for the CLI's whole process with limit-sized letters. */
const MAX_CLI_PEAK_MIB = 100;
/** What five 16 MiB letters may cost the CLI on the wire beyond five small ones: their 16 KiB previews and more. */
const MAX_SENT_GROWTH_BYTES = 1024 * 1024;
/** The page's reads run from a bundle too, with Node's defaults (the page's Next server sets no V8 options). */
const PAGE_READS = ['scripts/run-bundled.mjs', 'tests/helpers/dead-letters-page-reads.ts'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  peakMiB: number;
  /** Bytes Redis sent while the process ran: what it read, whatever its heap did with it. */
  redisSentBytes: number;
}

/** Five letters of one size under a prefix of their own, and the limit they were written under. */
interface Letters {
  bullpen: Bullpen;
  ids: string[];
  limit: number;
}

/**
 * The DLQ CLI and the dead-letters page's reads over limit-sized letters (issue 22,
 * item 1): they cut large payloads in Redis rather than read them, so five letters of
 * 16 MiB cost them what five small ones do, and the CLI, run as `npm run dlq` runs it
 * (scripts/run-bundled.mjs: a bundle, no tsx), stays under 100 MiB with them. Each run
 * is a process of its own that reports its peak RSS (tests/helpers/peak-rss.mjs).
 */
describe('large dead letters in the CLI and the dead-letters page', () => {
  const server = useTestRedis({ ...mailerApp, webhookJobType: undefined });
  const letters: Record<'small' | 'limitSized' | 'big', Letters> = {} as never;
  /** A connection of the file's own: the Bullpens above are closed after the first test. */
  let stats: Redis | undefined;
  afterAll(async () => {
    await stats?.quit();
  });

  async function fill(limit: number, blob: string): Promise<Letters> {
    const env = { BULLPEN_MAX_PAYLOAD_BYTES: String(limit) };
    const bullpen = await server.readyBullpen({ env });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { id } = await bullpen.dlq.record({
        queue: 'send-email',
        jobId: `large-${i}`,
        jobType: 'send-email',
        jobData: { payload: { to: 'ada@example.com', subject: `letter ${i}`, body: blob }, requestId: `r-${i}`, dispatchedAt: 1 },
        error: { message: `failure ${i}`, errorClass: 'server' },
        attempts: 1,
        failedAt: 1_700_000_000_000 + i,
        source: 'runtime',
      });
      ids.push(id);
    }
    return { bullpen, ids, limit };
  }

  beforeAll(async () => {
    letters.small = await fill(RAISED_LIMIT, 'x');
    // Just under the default limit: the letter keeps its payload whole.
    letters.limitSized = await fill(DEFAULT_MAX_PAYLOAD_BYTES, 'x'.repeat(DEFAULT_MAX_PAYLOAD_BYTES - 1024));
    letters.big = await fill(RAISED_LIMIT, 'x'.repeat(RAISED_LIMIT - 1024));
    // The first run builds the bundles (esbuild in the process); the runs measured are the warm ones.
    for (const warm of [await run(letters.small, DLQ_COMMAND, '--help'), await run(letters.small, PAGE_READS)]) {
      expect(warm.code, warm.stderr).toBe(0);
    }
  }, 180_000);

  /** Bytes Redis has sent to its clients so far (the tests run one process at a time). */
  async function netOutputBytes(): Promise<number> {
    stats ??= new Redis({ host: '127.0.0.1', port: server.redis.port, maxRetriesPerRequest: 1 });
    const info = await stats.info('stats');
    return Number(/total_net_output_bytes:(\d+)/.exec(info)?.[1]);
  }

  async function run(letterSet: Letters, command: readonly string[], ...args: string[]): Promise<Run> {
    const before = await netOutputBytes();
    const result = await spawnMeasured(letterSet, command, args);
    return { ...result, redisSentBytes: (await netOutputBytes()) - before };
  }

  function spawnMeasured({ bullpen, limit }: Letters, command: readonly string[], args: string[]): Promise<Omit<Run, 'redisSentBytes'>> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', './tests/helpers/peak-rss.mjs', ...command, ...args], {
        cwd: ROOT,
        env: {
          ...process.env,
          REDIS_URL: `redis://127.0.0.1:${server.redis.port}`,
          REDIS_CLUSTER_NODES: '',
          BULLPEN_PREFIX: bullpen.keys.root,
          BULLPEN_MAX_PAYLOAD_BYTES: String(limit),
          LOG_LEVEL: 'silent',
          // The registry holds no test application: the CLI runs on the mailer example's table.
          BULLPEN_APP: mailerApp.name,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += String(d)));
      child.stderr.on('data', (d) => (stderr += String(d)));
      child.on('error', reject);
      child.on('close', (code) => {
        const kb = /peak-rss-kb (\d+)/.exec(stderr)?.[1];
        if (!kb) return reject(new Error(`no peak reported (exit ${code}): ${stderr}`));
        resolve({ code, stdout, stderr, peakMiB: Number(kb) / 1024 });
      });
    });
  }

  /** Peak RSS of the same command over the small, the limit-sized and the 16 MiB letters. */
  async function compare(command: readonly string[], args: (ids: string[]) => string[]) {
    const runs = {
      small: await run(letters.small, command, ...args(letters.small.ids)),
      limitSized: await run(letters.limitSized, command, ...args(letters.limitSized.ids)),
      big: await run(letters.big, command, ...args(letters.big.ids)),
    };
    for (const r of Object.values(runs)) expect(r.code, r.stderr).toBe(0);
    const kib = (r: Run) => (r.redisSentBytes / 1024).toFixed(0);
    const peaks = `peak RSS ${runs.small.peakMiB.toFixed(1)} MiB small, ${runs.limitSized.peakMiB.toFixed(1)} MiB limit-sized, ${runs.big.peakMiB.toFixed(1)} MiB 16 MiB; Redis sent ${kib(runs.small)}, ${kib(runs.limitSized)}, ${kib(runs.big)} KiB`;
    console.info(`${command.join(' ')} ${args(['<id>']).join(' ')}: ${peaks}`);
    return {
      ...runs,
      growthMiB: runs.big.peakMiB - runs.small.peakMiB,
      sentGrowthBytes: runs.big.redisSentBytes - runs.small.redisSentBytes,
      peaks,
    };
  }

  it('npm run dlq -- list reads five 16 MiB letters in what five small ones cost, under 100 MiB', async () => {
    const text = await compare(DLQ_COMMAND, () => ['list', '--limit', '5']);
    expect(text.big.stdout).toMatch(/^5 of 5 dead letters/);
    expect(text.limitSized.stdout).toMatch(/^5 of 5 dead letters/);
    // Reading the letters whole (twice 16 MiB each, parsed) adds hundreds of MiB, and Redis sends
    // at least 80 MiB; cut, the five previews are 80 KiB.
    expect(text.sentGrowthBytes, text.peaks).toBeLessThan(MAX_SENT_GROWTH_BYTES);
    expect(text.growthMiB, text.peaks).toBeLessThan(20);
    // tsx's loader alone took the CLI to 130-150 MiB before it read a letter.
    expect(text.limitSized.peakMiB, text.peaks).toBeLessThan(MAX_CLI_PEAK_MIB);
    expect(text.big.peakMiB, text.peaks).toBeLessThan(MAX_CLI_PEAK_MIB);

    const json = await compare(DLQ_COMMAND, () => ['list', '--limit', '5', '--json']);
    const page = JSON.parse(json.big.stdout) as { entries: Array<{ payload?: unknown; payloadCut?: { bytes: number; preview: string } }> };
    expect(page.entries).toHaveLength(5);
    for (const e of page.entries) {
      expect(e.payload).toBeUndefined();
      expect(e.payloadCut?.bytes).toBeGreaterThan(RAISED_LIMIT - 1024);
      expect(e.payloadCut?.preview.length).toBe(16 * 1024);
    }
    expect(JSON.parse(json.limitSized.stdout).entries).toHaveLength(5);
    expect(json.sentGrowthBytes, json.peaks).toBeLessThan(MAX_SENT_GROWTH_BYTES);
    expect(json.growthMiB, json.peaks).toBeLessThan(20);
    expect(json.limitSized.peakMiB, json.peaks).toBeLessThan(MAX_CLI_PEAK_MIB);
    expect(json.big.peakMiB, json.peaks).toBeLessThan(MAX_CLI_PEAK_MIB);
  }, 180_000);

  it("the dead-letters page's list and entry reads cut the letters too", async () => {
    // The page's own process is a Next server, whose RSS is not these reads': they are held to
    // what the letters add (docs/dead-letters.md, "Large payloads"). What they read from Redis
    // is the measure: this bundle runs with Node's default heap settings, so its peak RSS moves
    // with when the collector runs (15-21 MiB of growth was seen with the letters cut), while
    // reading them whole would take 160 MiB off the wire and hundreds of MiB of heap.
    const reads = await compare(PAGE_READS, (ids) => ids);
    expect(JSON.parse(reads.big.stdout)).toEqual({ rows: 5, details: 5 });
    expect(JSON.parse(reads.limitSized.stdout)).toEqual({ rows: 5, details: 5 });
    // The entry page reads up to 768 KiB of a payload (what the editor can show), so at most
    // 1 MiB a letter, a sixteenth of each.
    expect(reads.sentGrowthBytes, reads.peaks).toBeLessThan(5 * 1024 * 1024);
    expect(reads.growthMiB, reads.peaks).toBeLessThan(64);
  }, 180_000);
});
