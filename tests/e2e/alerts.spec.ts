import { AlertsPage } from './pages/alerts-page';
import { WebhookReceiver } from './support/webhook-receiver';
import { expect, saveScreenshot, test } from './fixtures';

/**
 * Issue 25 item 3: an admin adds a Slack channel pointing at a loopback receiver, sends a
 * test, and lowers the DLQ threshold; the worker's rules then fire an alert to that
 * channel; an operator silences it. A viewer sees it all and has no control; no URL is
 * shown back or written to the audit.
 */
const CHANNEL = 'e2e-slack';
const TOKEN = 'T0E2E/B0E2E/slack-token-e2e';
let receiver: WebhookReceiver | undefined;
let deadLetterId: string | undefined;

test.afterEach(async ({ bullpen }) => {
  await receiver?.close();
  receiver = undefined;
  await bullpen.alerts.config.removeChannel(CHANNEL);
  await bullpen.alerts.config.updateRules({ deadLetters: { threshold: 100 } });
  await bullpen.redis.del(bullpen.alerts.keys.silences);
  if (deadLetterId) await bullpen.dlq.discard(deadLetterId, 'e2e-cleanup').catch(() => undefined);
  deadLetterId = undefined;
});

test('an admin sets up a Slack channel and a threshold, and an operator silences the alert that fires', async ({
  page,
  signIn,
  contextAs,
  bullpen,
}) => {
  receiver = await WebhookReceiver.start(200);
  const url = `${receiver.url}/services/${TOKEN}`;
  await signIn('admin', '/alerts');
  const alerts = new AlertsPage(page);
  await alerts.addSlackChannel(CHANNEL, 'E2E Slack', url);
  await expect(page.getByTestId('channel-save-result')).toHaveText('Channel saved.');
  const row = alerts.channel(CHANNEL);
  await expect(row).toContainText('127.0.0.1');
  await expect(page.locator('body')).not.toContainText('slack-token-e2e');

  await row.getByTestId('channel-test').click();
  await expect(row.getByTestId('channel-result')).toHaveText('Sent.');
  expect(receiver.received.map((r) => JSON.parse(r.body).text)).toContain('[Bullpen] Test alert: this channel works');
  await expect(row.getByTestId('channel-ok')).toBeVisible();

  // The threshold goes down to what is pending plus one, and one more dead letter crosses it.
  const pending = await bullpen.dlq.pendingCount();
  await alerts.rules.getByTestId('rule-deadLetters-threshold').fill(String(pending + 1));
  await alerts.rules.getByTestId('rules-save').click();
  await expect(page.getByTestId('rules-result')).toContainText('Rules saved');
  expect((await bullpen.alerts.config.rules()).deadLetters.threshold).toBe(pending + 1);
  deadLetterId = (
    await bullpen.dlq.record({
      queue: 'quota-check',
      jobId: `e2e-alert-${Date.now()}`,
      jobType: 'quota-check',
      jobData: { payload: {} },
      error: { message: 'e2e alert', errorClass: 'permanent' },
      attempts: 1,
      failedAt: Date.now(),
      source: 'runtime',
    })
  ).id;
  // The worker's next round (every 5 s) fires it to the channel.
  await expect
    .poll(() => receiver?.received.map((r) => JSON.parse(r.body).text as string).find((t) => t.includes('dead letters are waiting')), {
      timeout: 30_000,
    })
    .toMatch(/^\[Bullpen\] FIRING: \d+ dead letters are waiting/);

  const audit = JSON.stringify((await bullpen.audit.page({ limit: 20 })).entries);
  expect(audit).toContain('alert-channel.save');
  expect(audit).toContain('alert-rules.update');
  expect(audit).not.toContain('slack-token-e2e');

  const viewer = await contextAs('viewer', '/alerts');
  const viewerAlerts = new AlertsPage(viewer.page);
  await expect(viewerAlerts.alert('deadLetters')).toBeVisible();
  await expect(viewer.page.getByTestId('alert-silence')).toHaveCount(0);
  await expect(viewer.page.getByTestId('channel-test')).toHaveCount(0);
  await expect(viewerAlerts.rules.getByTestId('rules-save')).toHaveCount(0);

  const operator = await contextAs('operator', '/alerts');
  const opAlerts = new AlertsPage(operator.page);
  const firing = opAlerts.alert('deadLetters');
  await expect(firing.getByRole('link')).toHaveAttribute('href', '/dead-letters?status=pending');
  await expect(operator.page.getByTestId('channel-test')).toHaveCount(0);
  await firing.getByTestId('alert-silence-minutes').selectOption('60');
  await firing.getByTestId('alert-silence').click();
  await expect(firing.getByTestId('alert-silenced')).toContainText('silenced until');
  const silences = await bullpen.alerts.state.silences(Date.now());
  expect(silences.get('deadLetters')).toBeGreaterThan(Date.now() + 59 * 60_000);
  await saveScreenshot(operator.page, 'alerts-silenced');
});
