import { getConfig } from '../config';
import { type RunningWorker, startWorkerProcess, type WorkerProcessOptions } from '../runtime/worker-process';
import { type AnyBullpenApp, loadAppSettings } from './app-definition';
import { appOptions } from './create-app-bullpen';

/** What a worker process may set beside the application: where and how it runs. */
export type AppWorkerOptions = Omit<
  WorkerProcessOptions,
  'jobs' | 'schedules' | 'handlerDeps' | 'extensions' | 'metricsPrefix' | 'webhookJobType'
>;

/**
 * A worker process for an application: its settings parsed first (a wrong one stops the
 * start with its name), then the runtime handed its table, schedules, handler
 * dependencies and extensions (lib/runtime/worker-process.ts).
 */
export function startAppWorker(app: AnyBullpenApp, opts: AppWorkerOptions = {}): Promise<RunningWorker> {
  const config = opts.config ?? getConfig();
  const settings = loadAppSettings(app, config);
  return startWorkerProcess({
    ...appOptions(app),
    handlerDeps: (bullpen) => app.createDeps(bullpen, settings),
    extensions: app.extensions,
    ...opts,
    config,
  });
}
