import { spawn } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { useTestRedis } from '../helpers/use-test-redis';

const ROOT = path.resolve(__dirname, '../..');
/** A limit raised to 16 MiB, so that reading a letter whole would show in a process's peak. */
const LIMIT = 16 * 1024 * 1024;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  peakMiB: number;
}

/**
 * The DLQ CLI and the dead-letters page's reads over limit-sized letters (issue 22,
 * item 1): they cut large payloads in Redis rather than read them, so five letters of
 * 16 MiB cost them what five small ones do. Each runs in a process of its own that
 * reports its peak RSS (tests/helpers/peak-rss.mts).
 */
describe('large dead letters in the CLI and the dead-letters page', () => {
  const server = useTestRedis();
  let big: Bullpen;
  let small: Bullpen;
  const bigIds: string[] = [];
  const smallIds: string[] = [];

  async function fill(bullpen: Bullpen, ids: string[], blob: string) {
    for (let i = 0; i < 5; i++) {
      const { id } = await bullpen.dlq.record({
        queue: 'webhook-dispatch',
        jobId: `large-${i}`,
        jobType: 'webhook-dispatch',
        jobData: { payload: { webhookId: 'wh-1', event: 'e', payload: { i, blob } }, requestId: `r-${i}`, dispatchedAt: 1 },
        error: { message: `failure ${i}`, errorClass: 'server' },
        attempts: 1,
        failedAt: 1_700_000_000_000 + i,
        source: 'runtime',
      });
      ids.push(id);
    }
  }

  beforeAll(async () => {
    const env = { BULLPEN_MAX_PAYLOAD_BYTES: String(LIMIT) };
    big = await server.readyBullpen({ env });
    small = await server.readyBullpen({ env });
    await fill(big, bigIds, 'x'.repeat(LIMIT - 1024));
    await fill(small, smallIds, 'x');
  }, 120_000);

  function run(bullpen: Bullpen, script: string, ...args: string[]): Promise<Run> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'tests/helpers/peak-rss.mts', script, ...args], {
        cwd: ROOT,
        env: {
          ...process.env,
          REDIS_URL: `redis://127.0.0.1:${server.redis.port}`,
          REDIS_CLUSTER_NODES: '',
          BULLPEN_PREFIX: bullpen.keys.root,
          BULLPEN_MAX_PAYLOAD_BYTES: String(LIMIT),
          LOG_LEVEL: 'silent',
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

  /** Peak RSS of the same command over the small letters and over the large ones. */
  async function compare(script: string, args: (ids: string[]) => string[]) {
    const a = await run(small, script, ...args(smallIds));
    const b = await run(big, script, ...args(bigIds));
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    return {
      small: a,
      big: b,
      growthMiB: b.peakMiB - a.peakMiB,
      peaks: `peak RSS ${a.peakMiB.toFixed(1)} MiB small, ${b.peakMiB.toFixed(1)} MiB large`,
    };
  }

  it('npm run dlq -- list reads five 16 MiB letters in what five small ones cost', async () => {
    const text = await compare('scripts/dlq.ts', () => ['list', '--limit', '5']);
    expect(text.big.stdout).toMatch(/^5 of 5 dead letters/);
    // Reading the letters whole (twice 16 MiB each, parsed) adds hundreds of MiB.
    expect(text.growthMiB, text.peaks).toBeLessThan(20);

    const json = await compare('scripts/dlq.ts', () => ['list', '--limit', '5', '--json']);
    const page = JSON.parse(json.big.stdout) as { entries: Array<{ payload?: unknown; payloadCut?: { bytes: number; preview: string } }> };
    expect(page.entries).toHaveLength(5);
    for (const e of page.entries) {
      expect(e.payload).toBeUndefined();
      expect(e.payloadCut?.bytes).toBeGreaterThan(LIMIT - 1024);
      expect(e.payloadCut?.preview.length).toBe(16 * 1024);
    }
    expect(json.growthMiB, json.peaks).toBeLessThan(20);
  }, 180_000);

  it("the dead-letters page's list and entry reads cut the letters too", async () => {
    const reads = await compare('tests/helpers/dead-letters-page-reads.ts', (ids) => ids);
    expect(JSON.parse(reads.big.stdout)).toEqual({ rows: 5, details: 5 });
    expect(reads.growthMiB, reads.peaks).toBeLessThan(20);
  }, 180_000);
});
