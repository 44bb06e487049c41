import type { z } from 'zod';
import type { Bullpen } from '../bullpen';
import { type Config, ConfigError } from '../config';
import type { HandlerDepsOf, JobTable } from '../jobs/job-definition';
import type { WorkerExtension } from '../runtime/worker-process';
import type { ScheduleDefinition } from '../schedules/schedule-definition';

/**
 * An application on the runtime, in one object: what the worker, the dashboard and the
 * CLIs are handed, whichever application BULLPEN_APP names (docs/guide.md). The runtime
 * knows no job type and no application setting; an application brings both.
 */
export interface BullpenApp<T extends JobTable = JobTable, S = unknown> {
  /** How BULLPEN_APP names it: lowercase letters, digits and `-`. */
  name: string;
  /** Its job types, each declared once with `defineJob`. */
  jobs: T;
  /** Its cron schedules, each running one of `jobs`. */
  schedules: readonly ScheduleDefinition[];
  /**
   * Its own environment variables, parsed when a process starts (a wrong value stops the
   * worker with the variable's name, as lib/config.ts does for the runtime's).
   */
  settings: z.ZodType<S>;
  /** What its handlers are given (its stores), built once per worker process from the runtime's services. */
  createDeps: (bullpen: Bullpen, settings: S) => HandlerDepsOf<T>;
  /** The metric name prefix when METRICS_PREFIX is unset. @defaultValue the runtime's, `bullpen_` */
  metricsPrefix?: string;
  /** Its job type that delivers the webhook registry's events (lib/webhooks), if it has one. */
  webhookJobType?: T[number]['name'];
  /** What it runs beside its handlers for the life of a worker process (a usage counter, say). */
  extensions?: (bullpen: Bullpen) => WorkerExtension[];
}

/** An application whatever its table and settings, as a registry holds it. */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds applications of different tables and settings.
export type AnyBullpenApp = BullpenApp<JobTable, any>;

const APP_NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;

/** Declares an application; its name and webhook type are checked here, its table when it is handed to the runtime. */
export function defineApp<const T extends JobTable, S>(app: BullpenApp<T, S>): BullpenApp<T, S> {
  if (!APP_NAME.test(app.name)) throw new TypeError(`application name "${app.name}": lowercase letters, digits and - only`);
  if (app.webhookJobType !== undefined && !app.jobs.some((j) => j.name === app.webhookJobType)) {
    throw new TypeError(`${app.name}: webhookJobType "${app.webhookJobType}" is not a type of its job table`);
  }
  return app;
}

/**
 * The application's settings read from the variables `config` was read from; throws
 * ConfigError naming each bad variable, as `loadConfig` does.
 */
export function loadAppSettings<S>(app: Pick<BullpenApp<JobTable, S>, 'settings'>, config: Pick<Config, 'env'>): S {
  const parsed = app.settings.safeParse(config.env);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
  return parsed.data;
}
