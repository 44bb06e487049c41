import { type Bullpen, type BullpenOptions, createBullpen } from '../bullpen';
import type { AnyBullpenApp } from './app-definition';

/** The runtime's services for an application (appOptions), then `opts`. */
export function createAppBullpen(
  app: AnyBullpenApp,
  opts: Omit<BullpenOptions, 'jobs' | 'schedules' | 'metricsPrefix' | 'webhookJobType'> = {},
): Bullpen {
  return createBullpen({ ...appOptions(app), ...opts });
}

/** What the runtime is handed of an application: its table, schedules, metric prefix and webhook delivery type. */
export function appOptions(app: AnyBullpenApp): Pick<BullpenOptions, 'jobs' | 'schedules' | 'metricsPrefix' | 'webhookJobType'> {
  return { jobs: app.jobs, schedules: app.schedules, metricsPrefix: app.metricsPrefix, webhookJobType: app.webhookJobType };
}
