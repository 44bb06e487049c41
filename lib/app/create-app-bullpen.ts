import { type Bullpen, type BullpenOptions, createBullpen } from '../bullpen';
import type { AnyBullpenApp } from './app-definition';

/** The runtime's services for an application: its table, schedules and metric prefix, then `opts`. */
export function createAppBullpen(app: AnyBullpenApp, opts: Omit<BullpenOptions, 'jobs' | 'schedules' | 'metricsPrefix'> = {}): Bullpen {
  return createBullpen({ jobs: app.jobs, schedules: app.schedules, metricsPrefix: app.metricsPrefix, ...opts });
}
