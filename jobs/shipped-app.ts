import { defineApp } from '@/lib/app/app-definition';
import { createAppStores } from './app-stores';
import { SHIPPED_JOBS } from './index';
import { JobUsageRecorder } from './maintenance/quotas/job-usage-recorder';
import { UsageStore } from './maintenance/quotas/usage-store';
import { SHIPPED_SCHEDULES } from './schedules';
import { shippedSettingsSchema } from './settings';

/**
 * The shipped application, whole: the 18 job types, their five schedules, the stores
 * their handlers work on and its own settings; plus the jobsPerDay usage counter its
 * workers run (counted in memory per tenant and day, written every few seconds). Its
 * metrics keep the requirements' names, `ruvbot_worker_*` (docs/observability.md).
 * BULLPEN_APP=shipped (the default) runs it (applications.ts).
 */
export const shippedApp = defineApp({
  name: 'shipped',
  jobs: SHIPPED_JOBS,
  schedules: SHIPPED_SCHEDULES,
  settings: shippedSettingsSchema,
  createDeps: createAppStores,
  metricsPrefix: 'ruvbot_',
  webhookJobType: 'webhook-dispatch',
  extensions: (bullpen) => [new JobUsageRecorder({ usage: new UsageStore(bullpen.redis, bullpen.keys), logger: bullpen.logger })],
});
