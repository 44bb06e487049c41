import { createAppStores, type AppStores } from '@/jobs/app-stores';
import { shippedApp } from '@/jobs/shipped-app';
import { loadAppSettings } from '@/lib/app/app-definition';
import { SOURCE_JOB_NAMES, SOURCE_JOBS, type SourceJobName, type SourceJobs } from '@/jobs';
import type { Bullpen } from '@/lib/bullpen';
import { type CatalogEntry, JobCatalog } from '@/lib/jobs/job-catalog';
import { buildHandlers } from '@/lib/jobs/job-definition';
import type { HandlerMap } from '@/lib/runtime/handler';

/** The source application's job table, looked up by name as the runtime does. */
export const SOURCE_CATALOG = new JobCatalog(SOURCE_JOBS);
export const JOB_TYPE_NAMES = SOURCE_JOB_NAMES;
export type JobTypeName = SourceJobName;

/** A source job type's definition, typed by its name, defaults filled in. */
export function jobType<K extends JobTypeName>(name: K): Extract<SourceJobs[number], { name: K }> & CatalogEntry {
  return SOURCE_CATALOG.get(name) as Extract<SourceJobs[number], { name: K }> & CatalogEntry;
}

export const lockedFieldsOf = (name: JobTypeName) => SOURCE_CATALOG.lockedFieldsOf(name);

const stores = new WeakMap<Bullpen, AppStores>();

/** The source application's stores on a test's Bullpen, made once per Bullpen as a worker process makes them. */
export function storesOf(bullpen: Bullpen): AppStores {
  let s = stores.get(bullpen);
  if (!s) {
    s = createAppStores(bullpen, loadAppSettings(shippedApp, bullpen.config));
    stores.set(bullpen, s);
  }
  return s;
}

/** Every shipped handler on a test's Bullpen, as the source worker builds them. */
export function createHandlers(bullpen: Bullpen): HandlerMap {
  return buildHandlers(SOURCE_JOBS, storesOf(bullpen));
}
