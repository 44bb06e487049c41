import { z } from 'zod';
import { defineApp } from '@/lib/app/app-definition';
import { MAILER_JOBS, MAILER_SCHEDULES } from './jobs';
import { Outbox } from './outbox';

/**
 * The mailer, whole: its job table, its schedule and the one store its handlers are
 * given. It has no settings of its own. `BULLPEN_APP=mailer` runs it in the worker, the
 * dashboard and the CLIs (applications.ts).
 */
export const mailerApp = defineApp({
  name: 'mailer',
  jobs: MAILER_JOBS,
  schedules: MAILER_SCHEDULES,
  settings: z.object({}),
  createDeps: (bullpen) => ({ outbox: new Outbox(bullpen.redis, bullpen.keys) }),
});
