/**
 * "Retry all" on N failed jobs, for several N: seeds N failed jobs (clones of a job
 * that failed for real through the runtime) with their dead letters, runs the queue
 * page's retry-all in a fresh child process that samples its memory, and checks the
 * outcome in Redis (no job left failed, every job waiting again, every dead letter
 * marked as retried).
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import type { Bullpen } from '@/lib/bullpen';
import type { ShippedJobName } from '@/jobs';
import { cloneDeadLetter, cloneJobs, recordDeadLetters, verifyClones, type JobTemplate } from './dashboard-seed';
import type { RetryChildResult } from './dashboard-retry-child';

export interface RetryRun extends RetryChildResult {
  jobs: number;
  /** Set for the proof run: V8's old space capped at this many MiB (semi-space 1 MiB). */
  heapCapMiB?: number;
  /** Seeding this run's failed jobs and their dead letters. */
  seedMs: { jobs: number; deadLetters: number };
}

const CHILD = path.join(__dirname, 'dashboard-retry-child.ts');
const TENANTS = 20;

function runChild(args: { port: number; prefix: string; queue: ShippedJobName }, heapCapMiB?: number): Promise<RetryChildResult> {
  const cap = heapCapMiB ? [`--max-old-space-size=${heapCapMiB}`, '--max-semi-space-size=1'] : [];
  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [JSON.stringify(args)], {
      execArgv: ['--import', 'tsx', '--expose-gc', ...cap],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result: RetryChildResult | undefined;
    child.on('message', (m) => (result = m as RetryChildResult));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0 && result) resolve(result);
      else reject(new Error(`the retry-all child exited with ${code}${result ? '' : ' and no result'}`));
    });
  });
}

export interface RetrySize {
  jobs: number;
  /**
   * Cap V8's old space (MiB) for this run: if retry-all held anything per job, a
   * large N would run out of heap. Peaks without a cap say more about when V8 chose
   * to collect than about what the operation needs.
   */
  heapCapMiB?: number;
}

export interface RetryRuns {
  runs: RetryRun[];
  /** A capped run that did not finish (out of heap is the finding it exists for); the runs stop there. */
  cappedFailure?: { jobs: number; heapCapMiB: number; error: string };
}

/**
 * One run per size, each on its own range of job ids (the earlier runs' jobs wait,
 * retried, in the queue: the failed set holds exactly this run's N).
 */
export async function runRetryAll(bullpen: Bullpen, port: number, template: JobTemplate, sizes: RetrySize[]): Promise<RetryRuns> {
  const queue = bullpen.queues.get(template.type);
  const runs: RetryRun[] = [];
  let firstId = 1;
  let retriedBefore = 0;
  for (const { jobs, heapCapMiB } of sizes) {
    const spec = { firstId, count: jobs, tenants: TENANTS };
    const cloned = await cloneJobs(bullpen, template, spec);
    await verifyClones(bullpen, template, spec, jobs);
    const dlqMs = await recordDeadLetters(bullpen, jobs, (i) =>
      cloneDeadLetter(template, firstId + i, TENANTS, cloned.finishedAt(firstId + i)),
    );
    console.log(
      `  retry-all: seeded ${jobs.toLocaleString('en-US')} failed jobs (${(cloned.ms / 1000).toFixed(1)} s) and their dead letters (${(dlqMs / 1000).toFixed(1)} s)`,
    );

    let result: RetryChildResult;
    try {
      result = await runChild({ port, prefix: bullpen.keys.root, queue: template.type }, heapCapMiB);
    } catch (err) {
      if (!heapCapMiB) throw err;
      const error = (err as Error).message;
      console.log(`  retry-all (old space capped at ${heapCapMiB} MiB): ${jobs.toLocaleString('en-US')} jobs did not finish: ${error}`);
      return { runs, cappedFailure: { jobs, heapCapMiB, error } };
    }

    const counts = await queue.getJobCounts('failed', 'waiting', 'prioritized');
    const requeued = (counts.waiting ?? 0) + (counts.prioritized ?? 0) - retriedBefore;
    const marked = (await bullpen.dlq.list({ type: template.type, status: 'replayed' }, { limit: 1 })).total - retriedBefore;
    if (counts.failed !== 0 || requeued !== jobs || marked !== jobs || result.operation.succeeded !== jobs) {
      throw new Error(
        `retry-all of ${jobs} left ${counts.failed} failed, re-queued ${requeued}, marked ${marked} dead letters, reported ${result.operation.succeeded} succeeded`,
      );
    }
    console.log(
      `  retry-all${heapCapMiB ? ` (old space capped at ${heapCapMiB} MiB)` : ''}: ${jobs.toLocaleString('en-US')} jobs in ${(result.ms / 1000).toFixed(1)} s, peak heap +${(result.memory.heapGrowth / 1_048_576).toFixed(1)} MiB, peak RSS +${(result.memory.rssGrowth / 1_048_576).toFixed(1)} MiB`,
    );
    runs.push({ ...result, jobs, heapCapMiB, seedMs: { jobs: cloned.ms, deadLetters: dlqMs } });
    retriedBefore += jobs;
    firstId += jobs;
  }
  return { runs };
}
