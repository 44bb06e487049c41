import { createAppStores } from '@/jobs/app-stores';
import { SOURCE_JOBS, type SourceJobs, sourceApp } from '@/jobs';
import { JobUsageRecorder } from '@/jobs/maintenance/quotas/job-usage-recorder';
import { UsageStore } from '@/jobs/maintenance/quotas/usage-store';
import {
  type RunningWorker,
  startWorkerProcess as startRuntime,
  type WorkerProcessOptions as RuntimeOptions,
} from '@/lib/runtime/worker-process';

export type WorkerProcessOptions = Omit<RuntimeOptions<SourceJobs>, 'jobs'> & { jobs?: SourceJobs };

/**
 * The source application's worker: the runtime handed the 18 job types, their stores
 * and schedules, plus the jobsPerDay usage counter (counted in memory per tenant and
 * day, written every few seconds).
 */
export function startWorkerProcess(opts: WorkerProcessOptions = {}): Promise<RunningWorker> {
  return startRuntime<SourceJobs>({
    ...sourceApp,
    handlerDeps: createAppStores,
    extensions: (bullpen) => [new JobUsageRecorder({ usage: new UsageStore(bullpen.redis, bullpen.keys), logger: bullpen.logger })],
    ...opts,
    jobs: opts.jobs ?? SOURCE_JOBS,
  });
}
