import 'server-only';
import { processScoped } from '@/app/_lib/dashboard-process';
import { BulkOperations } from '@/lib/dashboard/bulk-operations';
import { JobOperations } from '@/lib/dashboard/job-operations';
import { QueueOperations } from '@/lib/dashboard/queue-operations';
import { QueueThroughput } from '@/lib/dashboard/queue-throughput';

interface Services {
  bulk: BulkOperations;
  queues: QueueOperations;
  throughput: QueueThroughput;
  jobs: JobOperations;
}

/** The dashboard's mutation services on the app's Bullpen, made once per process. */
export function dashboardServices(): Services {
  return processScoped('dashboard-services', (b) => ({
    bulk: new BulkOperations(b.redis, b.keys, b.logger, b.audit),
    queues: new QueueOperations(b),
    throughput: new QueueThroughput(b),
    jobs: new JobOperations(b),
  }));
}
