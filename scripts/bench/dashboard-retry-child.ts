/**
 * Child process of the retry-all benchmark (forked by dashboard-retry.ts with
 * `--expose-gc`): runs the queue page's "retry all" exactly as its server action
 * does — BulkRunner.start around QueueOperations.retryAllFailed — on a fresh
 * process, so RSS and heap say what that operation costs and nothing else.
 * Input: argv[2] as JSON ({port, prefix, queue}). Output: one IPC message.
 */
import { z } from 'zod';
import { createBullpen } from '@/lib/bullpen';
import { shippedApp } from '@/jobs/shipped-app';
import { loadConfig } from '@/lib/config';
import { BulkRunner, type BulkOperation } from '@/dashboard/live/bulk-runner';
import { QueueOperations } from '@/dashboard/queues/queue-operations';
import { SHIPPED_JOB_NAMES, type ShippedJobName } from '@/jobs';
import { silentLogger } from '@/lib/logging/logger';
import { readyClient } from '@/lib/redis/connection';
import { MemorySampler, summariseMemory, type MemorySummary } from './dashboard-memory';

const argsSchema = z.object({
  port: z.number().int().min(1).max(65_535),
  prefix: z.string().min(1),
  queue: z.enum(SHIPPED_JOB_NAMES as [ShippedJobName, ...ShippedJobName[]]),
});

export interface RetryChildResult {
  ms: number;
  operation: BulkOperation;
  memory: MemorySummary;
  /** Heap after the run and a full GC, minus the baseline: what the operation kept. */
  retainedHeap: number;
  /** Progress records written (one per batch plus the first). */
  progressReports: number;
}

function fullGc(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  gc();
  gc();
}

async function main(): Promise<void> {
  const args = argsSchema.parse(JSON.parse(process.argv[2] ?? '{}'));
  const bullpen = createBullpen({
    ...shippedApp,
    config: loadConfig({ LOG_LEVEL: 'warn' }),
    redis: { host: '127.0.0.1', port: args.port },
    prefix: args.prefix,
    logger: silentLogger,
  });
  try {
    await readyClient(bullpen.redis);
    const ops = new QueueOperations(bullpen);
    const bulk = new BulkRunner(bullpen.redis, bullpen.keys, bullpen.logger, bullpen.audit);
    // Load BullMQ's scripts and the queue object before the baseline.
    await bullpen.queues.get(args.queue).getJobCounts('failed');
    fullGc();
    const base = process.memoryUsage();
    const sampler = new MemorySampler(50);
    let progressReports = 0;
    sampler.start();
    const t0 = performance.now();
    const { finished } = await bulk.start({ kind: 'queue.retry-all', target: { kind: 'queue', id: args.queue }, by: 'bench' }, (report) =>
      ops.retryAllFailed(args.queue, 'bench', async (c) => {
        progressReports++;
        await report(c);
      }),
    );
    const operation = await finished;
    const ms = performance.now() - t0;
    const samples = sampler.stop();
    fullGc();
    const result: RetryChildResult = {
      ms,
      operation,
      memory: summariseMemory(base, samples),
      retainedHeap: process.memoryUsage().heapUsed - base.heapUsed,
      progressReports,
    };
    process.send?.(result);
  } finally {
    await bullpen.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
