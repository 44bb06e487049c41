import { createAppStores, type AppStores } from '@/jobs/app-stores';
import { shippedApp } from '@/jobs/shipped-app';
import { loadAppSettings } from '@/lib/app/app-definition';
import { SHIPPED_JOB_NAMES, SHIPPED_JOBS, type ShippedJobName, type ShippedJobs } from '@/jobs';
import type { Bullpen } from '@/lib/bullpen';
import { type CatalogEntry, JobCatalog } from '@/lib/jobs/job-catalog';
import { buildHandlers } from '@/lib/jobs/job-definition';
import type { HandlerMap } from '@/lib/runtime/handler';

/** The shipped application's job table, looked up by name as the runtime does. */
export const SHIPPED_CATALOG = new JobCatalog(SHIPPED_JOBS);
export const JOB_TYPE_NAMES = SHIPPED_JOB_NAMES;
export type JobTypeName = ShippedJobName;

/** A shipped job type's definition, typed by its name, defaults filled in. */
export function jobType<K extends JobTypeName>(name: K): Extract<ShippedJobs[number], { name: K }> & CatalogEntry {
  return SHIPPED_CATALOG.get(name) as Extract<ShippedJobs[number], { name: K }> & CatalogEntry;
}

export const lockedFieldsOf = (name: JobTypeName) => SHIPPED_CATALOG.lockedFieldsOf(name);

const stores = new WeakMap<Bullpen, AppStores>();

/** The shipped application's stores on a test's Bullpen, made once per Bullpen as a worker process makes them. */
export function storesOf(bullpen: Bullpen): AppStores {
  let s = stores.get(bullpen);
  if (!s) {
    s = createAppStores(bullpen, loadAppSettings(shippedApp, bullpen.config));
    stores.set(bullpen, s);
  }
  return s;
}

/** Every shipped handler on a test's Bullpen, as the shipped application's worker builds them. */
export function createHandlers(bullpen: Bullpen): HandlerMap {
  return buildHandlers(SHIPPED_JOBS, storesOf(bullpen));
}
