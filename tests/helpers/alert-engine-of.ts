import type { Bullpen } from '@/lib/bullpen';
import type { DeadLetterInput } from '@/lib/dlq/sink';
import { AlertEngine, type AlertEngineOptions } from '@/lib/alerts/alert-engine';
import { AlertObserver } from '@/lib/alerts/alert-observer';
import { ChannelSender } from '@/lib/alerts/channels/channel-sender';
import { silentLogger } from '@/lib/logging/logger';

/** An alert engine over `bullpen` as a worker builds one (lib/alerts/start-alerting.ts), loopback allowed; `overrides` change any option. */
export function alertEngineOf(bullpen: Bullpen, overrides: Partial<AlertEngineOptions> = {}): AlertEngine {
  return new AlertEngine({
    redis: bullpen.redis,
    keys: bullpen.alerts.keys,
    config: bullpen.alerts.config,
    state: bullpen.alerts.state,
    observer: new AlertObserver({ redis: bullpen.redis, queues: bullpen.queues, jobs: bullpen.jobs, dlq: bullpen.dlq }),
    sender: new ChannelSender({ allowHosts: ['127.0.0.1'] }),
    logger: silentLogger,
    owner: 'test-engine',
    ...overrides,
  });
}

/** A dead letter of `type` failed at `failedAt`, for the job `j<i>`. */
export function deadLetterOf(i: number, type: string, failedAt = Date.now()): DeadLetterInput {
  return {
    queue: type,
    jobId: `j${i}`,
    jobType: type,
    jobData: { payload: {}, dispatchedAt: failedAt },
    error: { message: 'boom', errorClass: 'permanent' },
    attempts: 1,
    failedAt,
    source: 'runtime',
  };
}
