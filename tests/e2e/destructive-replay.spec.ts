import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import type { Bullpen } from '@/lib/bullpen';
import type { DeadLetterInput } from '@/lib/dlq/sink';
import { DeadLettersPage } from './pages/dead-letters-page';
import { JobPage } from './pages/job-page';
import { captureServerAction, postServerAction } from './support/server-action';
import { expect, saveScreenshot, test } from './fixtures';

/*
 * Issue 21: the server wants an admin and the typed org for every start of a type that
 * destroys data (dashboard/jobs/job-start-rules.ts); the browser asks for it on each path
 * that can start one, and offers none of them to anyone else.
 */
const TYPE = 'data-deletion';
const ORG = 'e2e-destructive-replay';
const recorded: string[] = [];
const jobs: string[] = [];

test.afterEach(async ({ bullpen }) => {
  for (const id of recorded.splice(0)) {
    const entry = await bullpen.dlq.get(id);
    // A pending entry would keep the health page degraded for the specs after this one.
    if (entry?.status === 'pending') await bullpen.dlq.discard(id, 'e2e-cleanup');
  }
  const queue = bullpen.queues.get(TYPE);
  for (const id of jobs.splice(0)) {
    // A copy is not delayed: the e2e worker may be running it, and BullMQ refuses to remove a
    // job another worker holds the lock of. Its run (an e2e org's deletion) ends in seconds.
    await expect.poll(() => queue.getJobState(id), { timeout: 60_000 }).not.toBe('active');
    await (await queue.getJob(id))?.remove();
  }
});

/** A data-deletion dead letter for ORG, recorded as the runtime records a final failure (no job runs). */
async function deletionDeadLetter(bullpen: Bullpen, n: string): Promise<string> {
  const payload = { orgId: ORG, reason: 'e2e' };
  const input: DeadLetterInput = {
    queue: TYPE,
    jobId: `e2e-del-${n}-${Date.now()}`,
    jobType: TYPE,
    jobData: { payload, requestId: `e2e-${n}`, dispatchedAt: Date.now(), tenant: { orgId: ORG } },
    error: { message: 'store unavailable', errorClass: 'network' },
    attempts: 5,
    failedAt: Date.now(),
    tenant: { orgId: ORG },
    source: 'runtime',
  };
  const { id } = await bullpen.dlq.record(input);
  recorded.push(id);
  return id;
}

/** axe, WCAG 2.2 AA and best practices (as accessibility.spec.ts), on the page with the confirmation open. */
async function expectAxeClean(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

/** Who replayed dead letter `id`, by the audit (a replayed deletion erases the tenant's dead letters, this one included). */
async function replaysAudited(bullpen: Bullpen, id: string): Promise<string[]> {
  const { entries } = await bullpen.audit.page({ limit: 100 });
  return entries.filter((e) => e.action === 'dlq.replay' && e.target?.id === id).map((e) => e.actor);
}

async function jobTotal(bullpen: Bullpen): Promise<number> {
  const counts = await bullpen.queues.get(TYPE).getJobCounts();
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

test('an admin replays a data-deletion dead letter only after typing its org; an operator is not offered it', async ({
  page,
  signIn,
  contextAs,
  bullpen,
  e2e,
}) => {
  const id = await deletionDeadLetter(bullpen, 'entry');
  const before = await jobTotal(bullpen);

  // An operator: no replay on the entry page (neither as it is nor edited), none on its row; discard stays.
  const { page: op } = await contextAs('operator', `/dead-letters/${id}`);
  const opDlq = new DeadLettersPage(op);
  await expect(opDlq.detailAdminOnly).toContainText('only an admin may replay it');
  await expect(opDlq.detailReplayButton).toHaveCount(0);
  await expect(opDlq.payloadForm).toHaveCount(0);
  await expect(op.getByTestId('dlq-detail-discard')).toBeVisible();
  await opDlq.goto(`type=${TYPE}`);
  await expect(opDlq.rowAdminOnly(id)).toBeVisible();
  await expect(opDlq.replayButton(id)).toHaveCount(0);
  // Selected for a bulk replay, it is left out, with the count, and nothing is left to send.
  await opDlq.selectBox(id).check();
  await expect(opDlq.selectedLeftOut).toHaveAttribute('data-count', '1');
  await expect(opDlq.selectedLeftOut).toContainText(`Left out 1 ${TYPE} dead letter`);
  await expect(opDlq.replaySelectedButton).toBeDisabled();

  // An admin: the dialog asks for the org; nothing typed, no Replay.
  await signIn('admin', `/dead-letters/${id}`);
  const dlq = new DeadLettersPage(page);
  await dlq.detailReplayButton.click();
  await expect(dlq.detailConfirm).toBeVisible();
  await expect(dlq.detailConfirm).toHaveAccessibleName(`${TYPE} destroys data. Type ${ORG} to confirm; only an admin may start it`);
  await expect(dlq.detailReplayConfirm).toBeDisabled();
  await expectAxeClean(page);

  // Another org: refused with the message, nothing enqueued, the entry still pending.
  await dlq.detailConfirm.fill('someone-else');
  const call = await captureServerAction(page, () => dlq.detailReplayConfirm.click());
  expect(JSON.parse(call.body)).toEqual([expect.objectContaining({ id, confirm: 'someone-else' })]);
  await dlq.detailReplayButton.click();
  await dlq.detailConfirm.fill('someone-else');
  await dlq.detailReplayConfirm.click();
  await expect(dlq.detailResult).toHaveAttribute('data-ok', 'false');
  await expect(dlq.detailResult).toContainText(`Type ${ORG} to confirm`);

  // The same call without a confirmation, sent as a script would: refused alike.
  const [input] = JSON.parse(call.body) as [Record<string, unknown>];
  delete input.confirm;
  const bare = await postServerAction(page.context().request, e2e.baseURL, { ...call, body: JSON.stringify([input]) });
  expect(await bare.text()).toContain(`Type ${ORG} to confirm`);
  expect((await bullpen.dlq.get(id))?.replays).toHaveLength(0);
  expect(await jobTotal(bullpen)).toBe(before);

  // The org it deletes: replayed, by the admin.
  await dlq.detailReplayButton.click();
  await dlq.detailConfirm.fill(ORG);
  await saveScreenshot(page, 'destructive-replay-confirm');
  await dlq.detailReplayConfirm.click();
  // The replayed job deletes its tenant's dead letters, this one too, and the page may reload to "not found"
  // before its result is read: the audit is the record of the replay, and the refusal is gone.
  await expect.poll(() => replaysAudited(bullpen, id), { timeout: 30_000 }).toEqual(['admin']);
  await expect(page.getByText(`Type ${ORG} to confirm:`)).toHaveCount(0);
});

test('an admin replays a data-deletion row through its typed dialog', async ({ page, signIn, bullpen }) => {
  const id = await deletionDeadLetter(bullpen, 'row');
  await signIn('admin', `/dead-letters?type=${TYPE}`);
  const dlq = new DeadLettersPage(page);
  // `r` on the focused row opens the same typed dialog as its button, and Cancel leaves it pending.
  await expect(dlq.row(id)).toBeVisible();
  await expect(async () => {
    await page.keyboard.press('j');
    await expect(dlq.row(id)).toBeFocused({ timeout: 500 });
  }).toPass();
  await page.keyboard.press('r');
  const dialog = page.getByTestId(`dlq-replay-${id}-dialog`);
  await expect(dialog).toBeVisible();
  await expect(dlq.rowReplayConfirm(id)).toBeDisabled();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect((await bullpen.dlq.get(id))?.replays).toHaveLength(0);

  await dlq.replayButton(id).click();
  await expect(dlq.rowReplayConfirm(id)).toBeDisabled();
  await dlq.rowConfirm(id).fill(ORG);
  await dlq.rowReplayConfirm(id).click();
  // The row leaves the pending list once replayed (its result with it), and the job deletes the entry: the audit says it.
  await expect.poll(() => replaysAudited(bullpen, id), { timeout: 30_000 }).toEqual(['admin']);
});

test('a data-deletion job is duplicated by an admin who typed its org; an operator is offered neither retry nor duplicate', async ({
  page,
  signIn,
  contextAs,
  bullpen,
}) => {
  // Delayed ten minutes, so nothing is deleted while the test looks; removed afterwards.
  const { jobId } = await bullpen.dispatcher.dispatch(TYPE, { orgId: ORG, reason: 'e2e' }, { tenant: { orgId: ORG }, delayMs: 600_000 });
  jobs.push(jobId);

  const { page: op } = await contextAs('operator', `/queues/${TYPE}/jobs/${jobId}`);
  const opJob = new JobPage(op);
  await expect(opJob.adminOnly).toContainText('only an admin may retry or duplicate it');
  await expect(opJob.duplicateButton).toHaveCount(0);

  await signIn('admin', `/queues/${TYPE}/jobs/${jobId}`);
  const job = new JobPage(page);
  await job.duplicateButton.click();
  await expect(job.duplicateSubmit).toHaveAttribute('aria-disabled', 'true');
  await expectAxeClean(page);
  const before = await jobTotal(bullpen);
  await job.duplicateConfirm.fill('someone-else');
  await job.duplicateSubmit.click();
  await expect(job.duplicateConfirmErrors).toContainText(`Type ${ORG} to confirm`);
  expect(await jobTotal(bullpen)).toBe(before);

  await job.duplicateConfirm.fill(ORG);
  await job.duplicateSubmit.click();
  await expect(job.duplicateResult).toContainText('Duplicated');
  const copy = await page.getByTestId('job-duplicated-link').textContent();
  jobs.push(copy!.replace('job ', '').trim());
});
