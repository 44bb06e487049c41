import 'server-only';
import { processScoped } from '@/app/_lib/bullpen';
import { BulkOperations } from '@/lib/dashboard/bulk-operations';
import { JobOperations } from '@/lib/dashboard/job-operations';
import { QueueOperations } from '@/lib/dashboard/queue-operations';

interface Services {
  bulk: BulkOperations;
  queues: QueueOperations;
  jobs: JobOperations;
}

/** The dashboard's mutation services on the app's Bullpen, made once per process. */
export function dashboardServices(): Services {
  return processScoped('dashboard-services', (b) => ({
    bulk: new BulkOperations(b.redis, b.keys, b.logger, b.audit),
    queues: new QueueOperations(b),
    jobs: new JobOperations(b),
  }));
}
