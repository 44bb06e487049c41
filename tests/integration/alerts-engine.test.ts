import { describe, expect, it } from 'vitest';
import { WorkerMetrics } from '@/lib/metrics/worker-metrics';
import { DELIVERY_BACKOFF_MS } from '@/lib/alerts/alert-engine';
import { alertEngineOf, deadLetterOf } from '../helpers/alert-engine-of';
import { type HttpSink, startHttpSink } from '../helpers/alert-receivers';
import { TEST_JOBS } from '../helpers/test-jobs';
import { useTestRedis } from '../helpers/use-test-redis';

/*
 * The alert engine's rounds on a real redis-server, driven one by one with a clock the
 * test moves (docs/alerts.md): the DLQ threshold fires once, repeats at its interval and
 * resolves; a failing channel is retried with backoff and its failure is shown and counted.
 */
type SlackBody = { text: string; blocks: Array<{ text: { text: string } }> };

describe('alert rounds', () => {
  const t = useTestRedis();

  async function setup(sink: HttpSink) {
    const bullpen = await t.readyBullpen({ jobs: TEST_JOBS, schedules: [], metricsPrefix: undefined, webhookJobType: undefined });
    let now = Date.now();
    const clock = { now: () => now, advance: (ms: number) => (now += ms) };
    // No worker runs in this file: the no-worker rule is off so it does not join the messages.
    await bullpen.alerts.config.updateRules({ deadLetters: { threshold: 3 }, noWorkers: { enabled: false }, repeatSeconds: 60 });
    await bullpen.alerts.config.saveChannel({
      id: 'ops-slack',
      name: 'Ops Slack',
      target: { kind: 'slack', url: `${sink.url}/services/T0/B0/secret-token` },
    });
    return { bullpen, clock };
  }

  it('fires the DLQ threshold once, repeats it at its interval and resolves it', async () => {
    const sink = await startHttpSink();
    try {
      const { bullpen, clock } = await setup(sink);
      const engine = alertEngineOf(bullpen, { now: clock.now, dashboardUrl: 'https://jobs.example.com' });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await bullpen.dlq.record(deadLetterOf(i, 'sync'))).id);

      await engine.round();
      expect(sink.requests).toHaveLength(1);
      const fired = sink.requests[0]?.body as SlackBody;
      expect(fired.text).toBe('[Bullpen] FIRING: 3 dead letters are waiting (threshold 3)');
      expect(fired.blocks[0]?.text.text).toContain('deadLetters = *3*');
      expect(fired.blocks[0]?.text.text).toContain('<https://jobs.example.com/dead-letters?status=pending|Open in Bullpen>');
      expect((await bullpen.alerts.state.firing()).map((a) => a.key)).toEqual(['deadLetters']);

      // Still holding, within the repeat interval: nothing new, although the count grew.
      await bullpen.dlq.record(deadLetterOf(3, 'sync'));
      clock.advance(30_000);
      await engine.round();
      expect(sink.requests).toHaveLength(1);
      expect((await bullpen.alerts.state.firing())[0]?.value).toBe(4);

      clock.advance(30_000);
      await engine.round();
      expect(sink.requests).toHaveLength(2);
      expect((sink.requests[1]?.body as SlackBody).text).toBe('[Bullpen] STILL FIRING: 4 dead letters are waiting (threshold 3)');

      for (const id of ids) await bullpen.dlq.discard(id, 'test');
      clock.advance(1_000);
      await engine.round();
      expect(sink.requests).toHaveLength(3);
      expect((sink.requests[2]?.body as SlackBody).text).toBe('[Bullpen] RESOLVED: 4 dead letters are waiting (threshold 3)');
      expect(await bullpen.alerts.state.firing()).toEqual([]);
      const [resolved] = await bullpen.alerts.state.resolved();
      expect(resolved).toMatchObject({ key: 'deadLetters', value: 4 });

      clock.advance(120_000);
      await engine.round();
      expect(sink.requests).toHaveLength(3);
    } finally {
      await sink.close();
    }
  });

  it('retries a failing channel with backoff, shows its failure without its URL and counts it', async () => {
    const sink = await startHttpSink();
    try {
      const { bullpen, clock } = await setup(sink);
      const metrics = new WorkerMetrics(
        't_',
        async () => [],
        async () => 0,
        async () => {
          throw new Error('unused');
        },
      );
      const engine = alertEngineOf(bullpen, {
        now: clock.now,
        onDelivery: (kind, outcome) => metrics.alertDeliveries.inc({ kind, outcome }),
      });
      for (let i = 0; i < 3; i++) await bullpen.dlq.record(deadLetterOf(i, 'sync'));
      sink.failNext(2);

      await engine.round();
      expect(sink.requests.map((r) => r.status)).toEqual([503]);
      let status = (await bullpen.alerts.state.channelStatuses()).get('ops-slack');
      expect(status).toMatchObject({ failuresInARow: 1, dropped: 0 });
      expect(status?.lastError).toContain('503');
      expect(status?.lastError).not.toContain('secret-token');
      expect((await bullpen.alerts.state.pendingByChannel()).get('ops-slack')).toBe(1);

      // Before its backoff has passed, the message waits.
      clock.advance(DELIVERY_BACKOFF_MS - 100);
      await engine.round();
      expect(sink.requests).toHaveLength(1);

      clock.advance(100);
      await engine.round();
      expect(sink.requests.map((r) => r.status)).toEqual([503, 503]);
      expect((await bullpen.alerts.state.channelStatuses()).get('ops-slack')?.failuresInARow).toBe(2);

      // The second backoff doubles.
      clock.advance(2 * DELIVERY_BACKOFF_MS - 100);
      await engine.round();
      expect(sink.requests).toHaveLength(2);
      clock.advance(100);
      await engine.round();
      expect(sink.requests.map((r) => r.status)).toEqual([503, 503, 200]);
      // The same message each time: the one alert that fired, once it reached the channel.
      expect(new Set(sink.requests.map((r) => r.raw)).size).toBe(1);
      status = (await bullpen.alerts.state.channelStatuses()).get('ops-slack');
      expect(status).toMatchObject({ failuresInARow: 0, dropped: 0 });
      expect(status?.lastOkAt).toBe(clock.now());
      expect((await bullpen.alerts.state.pendingByChannel()).get('ops-slack')).toBeUndefined();

      const text = await metrics.registry.metrics();
      expect(text).toContain('t_worker_alert_deliveries_total{kind="slack",outcome="failed"} 2');
      expect(text).toContain('t_worker_alert_deliveries_total{kind="slack",outcome="ok"} 1');
    } finally {
      await sink.close();
    }
  });
});
