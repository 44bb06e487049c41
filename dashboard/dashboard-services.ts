import 'server-only';
import { processScoped } from '@/dashboard/dashboard-process';
import { BulkRunner } from '@/dashboard/live/bulk-runner';
import { JobOperations } from '@/dashboard/jobs/job-operations';
import { QueueOperations } from '@/dashboard/queues/queue-operations';
import { QueueThroughput } from '@/dashboard/queues/queue-throughput';

interface Services {
  bulk: BulkRunner;
  queues: QueueOperations;
  throughput: QueueThroughput;
  jobs: JobOperations;
}

/** The dashboard's mutation services on the app's Bullpen, made once per process. */
export function dashboardServices(): Services {
  return processScoped('dashboard-services', (b) => ({
    bulk: new BulkRunner(b.redis, b.keys, b.logger, b.audit),
    queues: new QueueOperations(b),
    throughput: new QueueThroughput(b),
    jobs: new JobOperations(b),
  }));
}
