import path from 'node:path';
import type { BrowserContext, Page } from '@playwright/test';
import type { Bullpen } from '@/lib/bullpen';
import type { ScheduleSummary } from '@/lib/schedules/schedule-summary';
import { requestFrom } from '../helpers/http-from';
import { DeadLettersPage } from './pages/dead-letters-page';
import { JobPage } from './pages/job-page';
import { LiveStream } from './pages/live-stream';
import { QueuePage } from './pages/queue-page';
import { SchedulesPage } from './pages/schedules-page';
import { SignInPage } from './pages/sign-in-page';
import { cleanUpDeliveries, failWebhookDelivery, type FailedDelivery } from './support/dead-letters';
import { PROXY_ADDRESS, ProxiedDashboards } from './support/proxied-dashboards';
import { captureServerAction } from './support/server-action';
import { WebhookReceiver } from './support/webhook-receiver';
import { expect, saveScreenshot, signInAs, test } from './fixtures';

/**
 * Issue 11, item 3: two dashboards behind Debian's nginx running the shipped
 * deploy/nginx/bullpen.conf (support/proxied-dashboards.ts). nginx is pinned to one
 * instance for a step (the other marked `down`, then reloaded), so which instance serves
 * each server action is known, and its access log ($upstream_addr) shows it.
 */

const SCHEDULE = 'index-optimization'; // default `0 0 3 * * *`
const EDITED = '0 15 4 * * *';
/** Loopback clients other than the browser (127.0.0.1) and the proxy (127.0.0.2). */
const VIA_PROXY_CLIENT = '127.0.0.9';
const DIRECT_CLIENT = '127.0.0.10';
const FORGED = '198.51.100.7';

let pair: ProxiedDashboards;
let context: BrowserContext | undefined;
let receiver: WebhookReceiver | undefined;
const failures: FailedDelivery[] = [];

test.beforeAll(async ({ e2e }) => {
  // Two `next` servers starting at once on a loaded two-core machine.
  test.setTimeout(180_000);
  pair = await ProxiedDashboards.start(path.resolve(__dirname, '../..'), e2e);
});

test.afterAll(async () => {
  await pair?.stop();
});

test.afterEach(async ({ bullpen }) => {
  await context?.close();
  await receiver?.close();
  context = receiver = undefined;
  await cleanUpDeliveries(bullpen, failures);
  if ((await bullpen.schedules.get(SCHEDULE)).edited) await bullpen.schedules.resetToDefault(SCHEDULE, 'e2e-cleanup');
  await pair?.proxy.pin(null);
});

async function proxiedPage(browser: import('@playwright/test').Browser): Promise<Page> {
  context = await browser.newContext({ baseURL: pair.proxy.url });
  return context.newPage();
}

test('through nginx: sign in on one dashboard, replay a dead letter on the other, edit a schedule back on the first; both show it all', async ({
  browser,
  bullpen,
  e2e,
}) => {
  const [a, b] = pair.instances;
  receiver = await WebhookReceiver.start(400);
  const failed = await failWebhookDelivery(bullpen, receiver, 'e2e.two-dashboards');
  failures.push(failed);
  const { entry } = failed;
  const page = await proxiedPage(browser);
  const logFrom = pair.proxy.requests().length;

  // Signed in by instance a: the session cookie is sealed with the shared secret there.
  await pair.proxy.pin(0);
  await signInAs(page, e2e, 'operator', '/dead-letters?type=webhook-dispatch');
  // nginx logs a request once it has sent the whole answer, which may be after the page shows it.
  await expect.poll(() => pair.actionCalls('/sign-in', logFrom)).toEqual(['a']);

  // Replayed by instance b, with a's cookie.
  await pair.proxy.pin(1);
  receiver.answer = 200;
  const dlq = new DeadLettersPage(page);
  const row = dlq.row(entry.id);
  await expect(row).toHaveAttribute('data-status', 'pending');
  await dlq.replayButton(entry.id).click();
  await expect(row.getByTestId('action-result')).toHaveAttribute('data-ok', 'true');
  await expect(row).toHaveAttribute('data-status', 'replayed');
  await expect.poll(() => pair.actionCalls('/dead-letters', logFrom)).toEqual(['b']);
  await saveScreenshot(page, 'two-dashboards-replayed');

  // The schedule edited by instance a again.
  await pair.proxy.pin(0);
  const schedules = new SchedulesPage(page);
  await schedules.goto();
  const card = schedules.card(SCHEDULE);
  await card.editButton.click();
  await card.patternInput.fill(EDITED);
  await expect(card.preview).toHaveAttribute('data-ok', 'true');
  await card.saveButton.click();
  await expect(card.form).toBeHidden();
  await expect(card.pattern).toHaveText(EDITED);
  await expect.poll(() => pair.actionCalls('/schedules', logFrom)).toEqual(['a']);

  // The replayed delivery went out once, through the worker both dashboards share.
  await expect.poll(() => receiver!.received.map((r) => r.answered), { timeout: 30_000 }).toEqual([400, 200]);
  const stored = await bullpen.dlq.get(entry.id);
  const newJobId = stored?.replays[0]?.newJobId;
  expect(stored?.replays.map((r) => r.by)).toEqual(['e2e-operator']);
  // And still once when the replay's job has finished and no webhook job is left to run.
  const webhookQueue = bullpen.queues.get('webhook-dispatch');
  await expect.poll(() => webhookQueue.getJobState(newJobId!)).toBe('completed');
  await expect
    .poll(async () =>
      Object.values(await webhookQueue.getJobCounts('waiting', 'prioritized', 'active', 'delayed')).reduce((a, n) => a + n, 0),
    )
    .toBe(0);
  expect(receiver!.received.map((r) => r.answered)).toEqual([400, 200]);

  // Each instance read directly, with the cookie the browser got through the proxy
  // (cookies are per host, not per port): the same replay, the same schedule.
  await pair.proxy.pin(null);
  for (const inst of [a, b]) {
    await page.goto(`${inst.url}/dead-letters/${encodeURIComponent(entry.id)}`);
    await expect(dlq.detailStatus, `instance ${inst.name}`).toHaveAttribute('data-status', 'replayed');
    await expect(dlq.replayRows).toHaveCount(1);
    await expect(dlq.replayRows.first()).toHaveAttribute('data-job-id', newJobId!);

    await page.goto(`${inst.url}/schedules`);
    await expect(card.pattern, `instance ${inst.name}`).toHaveText(EDITED);
    await expect(card.editedBadge).toContainText('e2e-operator');
  }
  // The live views' JSON, from each instance: the same edit (by, at, next fire times) and the same list.
  const readBoth = (pathname: string) =>
    Promise.all(
      [a, b].map(async (inst) => {
        const res = await page.request.get(`${inst.url}${pathname}`);
        expect(res.status(), `${pathname} from instance ${inst.name}`).toBe(200);
        return res.json();
      }),
    );
  const schedulesRead = (await readBoth('/api/live/schedules')) as ScheduleSummary[][];
  const edits = schedulesRead.map((list) => {
    const s = list.find((x) => x.name === SCHEDULE);
    return { pattern: s?.pattern, edited: s?.edited, editedBy: s?.editedBy, editedAt: s?.editedAt, nextRuns: s?.nextRuns };
  });
  expect(edits[0]).toMatchObject({ pattern: EDITED, edited: true, editedBy: 'e2e-operator' });
  expect(edits[1]).toEqual(edits[0]);
  // `readAt` is each read's own clock; everything else must match.
  const lists = ((await readBoth('/api/live/dead-letters?type=webhook-dispatch')) as Array<{ readAt: number }>).map(
    ({ readAt: _readAt, ...rest }) => rest,
  );
  expect(JSON.stringify(lists[0])).toContain(`"id":"${entry.id}","queue":"webhook-dispatch"`);
  expect(lists[1]).toEqual(lists[0]);

  // And through the proxy, unpinned, requests reach both.
  for (let i = 0; i < 4; i++) expect((await page.request.get(`/api/live/schedules?probe=${i}`)).status()).toBe(200);
  const probed = () =>
    pair.proxy
      .requests()
      .slice(logFrom)
      .filter((r) => r.uri.startsWith('/api/live/schedules?probe='));
  await expect.poll(() => probed().length).toBe(4);
  expect(new Set(probed().map((r) => r.upstream))).toEqual(new Set([a.upstream, b.upstream]));
});

test('TRUSTED_PROXIES: the audit log and the sign-in throttle use the address nginx forwarded, never a forged one', async ({
  browser,
  bullpen,
  e2e,
}) => {
  const [a] = pair.instances;
  const page = await proxiedPage(browser);
  const since = Date.now();
  const logFrom = pair.proxy.requests().length;

  // The browser (127.0.0.1) signs in through nginx, whose connection comes from 127.0.0.2.
  await signInAs(page, e2e, 'viewer');
  const signedIn = await auditFor(bullpen, 'auth.sign-in', e2e.users.viewer.username, since);
  expect(signedIn.map((e) => e.details?.ip)).toEqual(['127.0.0.1']);

  // A refused sign-in call as the browser sends it, then sent by two other loopback clients
  // claiming to be someone else: one through nginx, one straight to an instance.
  // Off the dashboard first: an open page whose session goes sends itself to the sign-in
  // page (its live stream or a poll gets 401), which would abort the navigation below.
  await page.goto('about:blank');
  await context!.clearCookies();
  const name = `proxy-probe-${Date.now().toString(36)}`;
  const form = new SignInPage(page);
  await form.goto();
  const call = await captureServerAction(page, () => form.submitCredentials(name, 'wrong-password-1'));
  const send = (client: string, base: string) =>
    requestFrom(client, `${base}${new URL(call.url).pathname}`, {
      method: 'POST',
      headers: {
        'next-action': call.id,
        'content-type': call.contentType,
        accept: 'text/x-component',
        origin: base,
        'x-forwarded-for': FORGED,
      },
      body: call.body,
    });
  const viaProxy = await send(VIA_PROXY_CLIENT, pair.proxy.url);
  expect(viaProxy.status).toBe(200);
  expect(viaProxy.body).toContain('Wrong user name or password');
  const direct = await send(DIRECT_CLIENT, a.url);
  expect(direct.status).toBe(200);
  expect(direct.body).toContain('Wrong user name or password');

  // nginx appended the real client after the forged hop; only the proxy's word is believed.
  const forgedThroughProxy = () =>
    pair.proxy
      .requests()
      .slice(logFrom)
      .filter((r) => r.method === 'POST' && r.forwardedFor === FORGED);
  await expect.poll(() => forgedThroughProxy().map((r) => r.remote)).toEqual([VIA_PROXY_CLIENT]);
  // Refused sign-ins are counted per client per minute (docs/security.md): under the real clients only.
  const { rows } = await bullpen.signInFailures.page({ limit: 100 });
  const refusedFrom = new Set(rows.filter((r) => r.minute >= since - 60_000).map((r) => r.client));
  for (const client of [DIRECT_CLIENT, VIA_PROXY_CLIENT]) expect(refusedFrom.has(client), client).toBe(true);
  expect(refusedFrom.has(FORGED)).toBe(false);

  const failPair = (client: string) => bullpen.keys.tagged('auth', 'fail', 'pair', name, client);
  expect(Number(await bullpen.redis.hget(failPair(VIA_PROXY_CLIENT), 'fails'))).toBe(1);
  expect(Number(await bullpen.redis.hget(failPair(DIRECT_CLIENT), 'fails'))).toBe(1);
  for (const wrong of [FORGED, PROXY_ADDRESS, '127.0.0.1']) expect(await bullpen.redis.exists(failPair(wrong))).toBe(0);
});

test("through nginx: a queue's counts and a job's progress come pushed without a poll; a hung dashboard's stream is announced within 5 s", async ({
  browser,
  bullpen,
  e2e,
}) => {
  const page = await proxiedPage(browser);
  await pair.proxy.pin(0);
  await signInAs(page, e2e, 'operator', '/queues/embedding-batch?state=delayed');
  const live = new LiveStream(page);
  const queue = new QueuePage(page, 'embedding-batch');
  await expect(live.status).toHaveAttribute('data-stream', 'open');
  live.recordPolls();
  const count = queue.stateTab('delayed').locator('.count');
  const before = Number(await count.textContent());
  const namespace = `e2e-proxied-stream-${Date.now().toString(36)}`;
  const items = Array.from({ length: 30 }, (_, i) => ({ id: `doc-${i}`, text: `document ${i} through nginx` }));
  const delayed = await bullpen.dispatcher.dispatch('embedding-batch', { namespace, items: items.slice(0, 1) }, { delayMs: 600_000 });
  try {
    await expect(count).toHaveText(String(before + 1));
    expect(live.polled(), 'no live route was polled through nginx while the stream was open').toEqual([]);

    const { jobId } = await bullpen.dispatcher.dispatch('embedding-batch', { namespace, items, batchSize: 1 });
    await page.goto(`/queues/embedding-batch/jobs/${encodeURIComponent(jobId)}`);
    const job = new JobPage(page);
    await expect(live.status).toHaveAttribute('data-stream', 'open');
    live.recordPolls();
    await job.expectIntermediateProgress();
    expect(live.polled(), 'no live route was polled through nginx while the stream was open').toEqual([]);
    // Instance a hangs: its stream goes silent, and the tab says so within 5 s, then polls.
    pair.pause(0);
    const hungAt = Date.now();
    try {
      await expect(live.notice).toBeVisible({ timeout: 5_000 });
      expect(Date.now() - hungAt, 'the broken stream is announced within 5 s').toBeLessThan(5_000);
      await expect(live.notice).toContainText('went silent');
      await expect(live.status).toHaveAttribute('data-stream', 'polling');
    } finally {
      pair.resume(0);
    }
    // Back: the stream opens again and the notice goes.
    await expect(live.notice).toHaveCount(0, { timeout: 30_000 });
    await expect(live.status).toHaveAttribute('data-stream', 'open');
  } finally {
    await (await bullpen.queues.get('embedding-batch').getJob(delayed.jobId))?.remove();
  }
});

/** Audit entries of `action` on user `target` written since `since`, oldest first. */
async function auditFor(bullpen: Bullpen, action: string, target: string, since: number) {
  const { entries } = await bullpen.audit.page({ limit: 200 });
  return entries.filter((e) => e.action === action && e.target?.id === target && e.at >= since).reverse();
}
