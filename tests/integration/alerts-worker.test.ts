import { afterEach, describe, expect, it } from 'vitest';
import { createBullpen, type Bullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { PermanentError } from '@/lib/errors/permanent-error';
import { readyClient } from '@/lib/redis/connection';
import { startWorkerProcess, type RunningWorker } from '@/lib/runtime/worker-process';
import { verifySignature } from '@/lib/webhooks/signature';
import { type HttpSink, type SmtpSink, startHttpSink, startSmtpSink } from '../helpers/alert-receivers';
import { capturingLogger } from '../helpers/capturing-logger';
import { uniquePrefix } from '../helpers/redis';
import { TEST_JOBS } from '../helpers/test-jobs';
import { useTestRedis } from '../helpers/use-test-redis';

/*
 * Alerting as a worker process runs it (lib/alerts/start-alerting.ts), rounds every second:
 * a critical type's dead letter reaches a signed webhook and a mailbox within 10 s, and
 * 500 final failures within a minute make one message (docs/alerts.md).
 */
const SECRET = 'whsec-0123456789abcdef';
const SMTP = { user: 'alerts@example.com', pass: 'smtp-pa55word-xyz' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('alerting in the worker', () => {
  const t = useTestRedis();
  let worker: RunningWorker | undefined;
  let admin: Bullpen | undefined;
  let sink: HttpSink | undefined;
  let smtp: SmtpSink | undefined;
  afterEach(async () => {
    await worker?.stop(2_000);
    await admin?.close();
    await sink?.close();
    await smtp?.close();
    worker = admin = sink = smtp = undefined;
  });

  async function start(channels: Array<'webhook' | 'email'>, rules: Parameters<Bullpen['alerts']['config']['updateRules']>[0] = {}) {
    sink = await startHttpSink();
    smtp = await startSmtpSink(SMTP);
    const prefix = uniquePrefix('alerts');
    const env = { LOG_LEVEL: 'debug', ALERTS_INTERVAL_MS: '1000', WEBHOOK_ALLOW_HOSTS: '127.0.0.1', BULLPEN_HISTORY: '0' };
    const target = { host: '127.0.0.1', port: t.redis.port };
    admin = createBullpen({ jobs: TEST_JOBS, config: loadConfig(env), redis: target, prefix });
    await readyClient(admin.redis);
    await admin.alerts.config.updateRules(rules);
    if (channels.includes('webhook')) {
      await admin.alerts.config.saveChannel({
        id: 'hook',
        name: 'Pager hook',
        target: { kind: 'webhook', url: `${sink.url}/alerts`, secret: SECRET },
      });
    }
    if (channels.includes('email')) {
      await admin.alerts.config.saveChannel({
        id: 'mail',
        name: 'On-call mail',
        target: {
          kind: 'email',
          host: '127.0.0.1',
          port: smtp.port,
          user: SMTP.user,
          password: SMTP.pass,
          from: 'bullpen@example.com',
          to: ['oncall@example.com'],
        },
      });
    }
    const captured = capturingLogger();
    worker = await startWorkerProcess({
      jobs: TEST_JOBS,
      handlers: {
        notify: async () => {
          throw new PermanentError('receiver said 410 Gone', 'GONE');
        },
        sync: async () => 'ok',
        erase: async () => 'ok',
        // Every type of the table served, so that no "no workers" alert rides along.
        tidy: async () => ({ removed: 0 }),
      },
      config: loadConfig(env),
      redis: target,
      prefix,
      logger: captured.logger,
      metricsServer: false,
    });
    return { admin, logs: captured.lines };
  }

  it('brings a critical type’s dead letter to the webhook and the mailbox within 10 s, secrets unlogged', async () => {
    const { admin, logs } = await start(['webhook', 'email']);
    const started = Date.now();
    await admin.dispatcher.dispatch('notify', { webhookId: 'wh-1', event: 'order.created', payload: {} });
    await until('the webhook and the mail', () => (sink?.requests.length ?? 0) > 0 && (smtp?.mails.length ?? 0) > 0, 10_000);
    const elapsed = Math.max(sink!.requests[0]!.at, smtp!.mails[0]!.at) - started;
    expect(elapsed).toBeLessThan(10_000);

    const [req] = sink!.requests;
    expect(verifySignature(SECRET, req!.raw, req!.headers['x-signature'] as string)).toBe(true);
    expect(req!.headers['x-event']).toBe('bullpen.alert');
    const body = req!.body as { id: string; payload: { lines: Array<Record<string, unknown>> } };
    expect(req!.headers['x-delivery-id']).toBe(body.id);
    expect(body.payload.lines).toEqual([
      expect.objectContaining({ kind: 'firing', rule: 'criticalDeadLetter', queue: 'notify', value: 1, url: '/dead-letters?type=notify' }),
    ]);

    const [mail] = smtp!.mails;
    expect(mail!.authUser).toBe(SMTP.user);
    expect(mail!.subject).toBe('[Bullpen] FIRING: 1 notify job dead-lettered in the last 15 min (critical type)');
    expect(mail!.text).toContain('queue: notify');
    expect(mail!.text).toContain('/dead-letters?type=notify');

    const logged = JSON.stringify(logs);
    expect(logged).toContain('alerts changed');
    for (const secret of [SECRET, SMTP.pass, `${sink!.url}/alerts`]) expect(logged).not.toContain(secret);
  });

  it('makes one message of 500 final failures within a minute', async () => {
    // The DLQ-size and failure-rate rules are other alerts, each with its own first message
    // in the round where it crosses (which may be a later one): this test is about one alert.
    const { admin } = await start(['webhook'], { deadLetters: { enabled: false }, failureRate: { enabled: false } });
    const started = Date.now();
    const payload = { webhookId: 'wh-1', event: 'order.created', payload: {} };
    await admin.dispatcher.dispatchBulk(Array.from({ length: 500 }, () => ({ type: 'notify', data: payload })));
    await until('500 dead letters', async () => (await admin.dlq.pendingCount()) === 500, 45_000);
    // Rounds after the last failure, so a message they might add would be seen.
    await sleep(2_500);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(sink!.requests).toHaveLength(1);
    const lines = (sink!.requests[0]!.body as { payload: { lines: Array<{ kind: string; key: string }> } }).payload.lines;
    expect(lines.map((l) => `${l.kind} ${l.key}`)).toEqual(['firing criticalDeadLetter:notify']);
    const [firing] = await admin.alerts.state.firing();
    expect(firing).toMatchObject({ key: 'criticalDeadLetter:notify', value: 500 });
  });
});
