import type { Bullpen } from '../bullpen';
import type { WorkerMetrics } from '../metrics/worker-metrics';
import { AlertEngine } from './alert-engine';
import { AlertObserver } from './alert-observer';
import { ChannelSender } from './channels/channel-sender';

/**
 * Starts the worker's share of alerting (docs/alerts.md): rounds every ALERTS_INTERVAL_MS,
 * evaluated by whichever worker holds the lease. Undefined when ALERTS_INTERVAL_MS is 0.
 */
export function startAlerting(bullpen: Bullpen, opts: { owner: string; metrics?: WorkerMetrics }): (() => Promise<void>) | undefined {
  const { config, logger } = bullpen;
  if (config.ALERTS_INTERVAL_MS === 0) return undefined;
  const engine = new AlertEngine({
    redis: bullpen.redis,
    keys: bullpen.alerts.keys,
    config: bullpen.alerts.config,
    state: bullpen.alerts.state,
    observer: new AlertObserver({ redis: bullpen.redis, queues: bullpen.queues, jobs: bullpen.jobs, dlq: bullpen.dlq }),
    sender: new ChannelSender({ allowHosts: config.WEBHOOK_ALLOW_HOSTS }),
    logger,
    owner: opts.owner,
    dashboardUrl: config.BULLPEN_DASHBOARD_URL,
    leaseTtlMs: Math.max(15_000, 3 * config.ALERTS_INTERVAL_MS),
    onDelivery: (kind, outcome) => opts.metrics?.alertDeliveries.inc({ kind, outcome }),
  });
  return engine.start(config.ALERTS_INTERVAL_MS);
}
