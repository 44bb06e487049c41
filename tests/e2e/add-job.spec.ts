import { JobPage } from './pages/job-page';
import { type AddJobForm, QueuePage } from './pages/queue-page';
import { captureServerAction, postServerAction } from './support/server-action';
import { expect, saveScreenshot, test } from './fixtures';

/*
 * Issue 10, item 4: an operator adds a job from the queue page. quota-check runs in the
 * e2e stack without outside services and finishes in well under a second, so the job
 * can be watched from added to completed on its own page.
 */
const QUEUE = 'quota-check';
const ORG = 'e2e-add-job';

const added: string[] = [];

test.afterEach(async ({ bullpen }) => {
  const queue = bullpen.queues.get(QUEUE);
  for (const id of added.splice(0)) {
    const job = await queue.getJob(id);
    if (job && (await job.getState()) === 'delayed') await job.remove();
  }
});

test('an operator adds a job from the form, sees schema errors as they type, and watches the job complete', async ({
  page,
  signIn,
  bullpen,
}) => {
  await signIn('operator', `/queues/${QUEUE}`);
  const queue = new QueuePage(page, QUEUE);
  const form = await queue.openAddJob();

  // The form starts from the schema's defaults ({} for quota-check), already valid, with the type's priority.
  await expect(form.payload).toHaveValue('{}');
  await expect(form.check).toHaveAttribute('data-ok', 'true');
  await expect(form.priority).toHaveValue('MEDIUM');

  // A payload the schema refuses, typed key by key: the field and its rule show under the editor, and nothing can be added.
  await form.payload.fill('');
  await form.payload.pressSequentially('{"orgId": "../etc"}');
  await expect(form.check).toHaveAttribute('data-stage', 'schema');
  await expect(form.check).toContainText('orgId');
  await expect(form.check).toContainText('not starting with a dot');
  await expect(form.submit).toHaveAttribute('aria-disabled', 'true');
  // Broken JSON says where.
  await form.payload.fill('{"orgId": ');
  await expect(form.check).toHaveAttribute('data-stage', 'json');
  await expect(form.check).toContainText('line 1, column 11');
  // The tenant follows the tenant rules too.
  await form.payload.fill('{}');
  await expect(form.check).toHaveAttribute('data-ok', 'true');
  await form.orgId.fill('.hidden');
  await expect(form.orgIdErrors).toContainText('not starting with a dot');
  await expect(form.submit).toHaveAttribute('aria-disabled', 'true');
  await saveScreenshot(page, 'add-job-errors');

  // A valid job with a tenant and a priority: added, linked, and it runs to completion.
  await form.orgId.fill(ORG);
  await form.priority.selectOption('HIGH');
  await expect(form.orgIdErrors).toHaveCount(0);
  await form.submit.click();
  await expect(form.result).toContainText('Added job');
  const jobId = await form.addedJobId();
  added.push(jobId);
  const stored = await bullpen.queues.get(QUEUE).getJob(jobId);
  expect(stored?.data).toMatchObject({ payload: {}, tenant: { orgId: ORG } });
  expect(stored?.opts.priority).toBe(3);
  await saveScreenshot(page, 'add-job-added');

  // A second one, delayed by 10 minutes, waits in delayed.
  await form.delay.fill('10');
  await form.delayUnit.selectOption('minutes');
  await form.submit.click();
  await expect(form.addedLink).not.toHaveText(`job ${jobId}`);
  const delayedId = await form.addedJobId();
  added.push(delayedId);
  expect(await bullpen.queues.get(QUEUE).getJobState(delayedId)).toBe('delayed');

  // Each add is audited with its job id, never the payload.
  const { entries } = await bullpen.audit.page({ limit: 50 });
  const entry = entries.find((e) => e.action === 'job.add' && e.details?.jobId === jobId);
  expect(entry).toMatchObject({
    target: { kind: 'job', id: `${QUEUE}/${jobId}` },
    tenant: { orgId: ORG },
    details: { priority: 'HIGH', delayMs: 0 },
  });
  expect(entry?.details).not.toHaveProperty('payload');

  // Back to the first job: its page follows it to completed.
  const job = new JobPage(page);
  await job.goto(QUEUE, jobId);
  await expect(job.state).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  await saveScreenshot(page, 'add-job-completed');
});

test('a viewer sees no form to add a job, and the action called directly refuses them', async ({
  page,
  signIn,
  contextAs,
  bullpen,
  e2e,
}) => {
  await signIn('viewer', `/queues/${QUEUE}`);
  await expect(page.getByTestId('queue-state-tab-completed')).toBeVisible();
  await expect(page.getByTestId('add-job-open')).toHaveCount(0);
  await expect(page.getByTestId('add-job-form')).toHaveCount(0);

  // The operator's add (delayed, so a wrongly accepted one would stay visible), captured before it leaves the browser.
  const { page: op } = await contextAs('operator', `/queues/${QUEUE}`);
  const form = await new QueuePage(op, QUEUE).openAddJob();
  await expect(form.check).toHaveAttribute('data-ok', 'true');
  await form.delay.fill('10');
  await form.delayUnit.selectOption('minutes');
  const call = await captureServerAction(op, () => form.submit.click());
  expect(JSON.parse(call.body)).toEqual([expect.objectContaining({ queue: QUEUE, payload: '{}', delay: '10', delayUnit: 'minutes' })]);

  const delayedBefore = await bullpen.queues.get(QUEUE).getDelayedCount();
  expect((await postServerAction(page.context().request, e2e.baseURL, call)).status()).toBe(403);
  expect(await bullpen.queues.get(QUEUE).getDelayedCount()).toBe(delayedBefore);
});

test('a destructive type starts only for an admin who typed the org it acts on', async ({ page, signIn, contextAs, bullpen, e2e }) => {
  const type = 'data-deletion';
  const org = 'e2e-destructive';
  const queue = bullpen.queues.get(type);
  const before = await queue.getDelayedCount();
  // Delayed ten minutes, so nothing is deleted while the test looks; removed afterwards.
  const fill = async (form: AddJobForm) => {
    await form.payload.fill(JSON.stringify({ orgId: org, reason: 'e2e' }));
    await expect(form.check).toHaveAttribute('data-ok', 'true');
    await form.delay.fill('10');
    await form.delayUnit.selectOption('minutes');
  };

  // An operator is not offered the form.
  const { page: op } = await contextAs('operator', `/queues/${type}`);
  await expect(op.getByTestId('add-job-admin-only')).toContainText('only an admin');
  await expect(op.getByTestId('add-job-open')).toHaveCount(0);
  await expect(op.getByTestId('add-job-form')).toHaveCount(0);

  // An admin who types another org is told which one to type, and nothing is added.
  await signIn('admin', `/queues/${type}`);
  const form = await new QueuePage(page, type).openAddJob();
  await fill(form);
  await expect(form.submit).toHaveAttribute('aria-disabled', 'true');
  await form.confirm.fill('someone-else');
  await form.submit.click();
  await expect(form.confirmErrors).toContainText(`Type ${org} to confirm`);
  expect(await queue.getDelayedCount()).toBe(before);

  // The admin's call with the right org, captured before it leaves the browser: sent with the
  // operator's session, the server refuses it whatever it says.
  await form.confirm.fill(org);
  const call = await captureServerAction(page, () => form.submit.click());
  expect(JSON.parse(call.body)).toEqual([expect.objectContaining({ queue: type, confirm: org })]);
  const refused = await postServerAction(op.context().request, e2e.baseURL, call);
  expect(await refused.text()).toContain('only an admin');
  expect(await queue.getDelayedCount()).toBe(before);

  // The right org, from the admin: added.
  await form.submit.click();
  await expect(form.result).toContainText('Added job');
  const jobId = await form.addedJobId();
  expect(await queue.getJobState(jobId)).toBe('delayed');
  await (await queue.getJob(jobId))?.remove();
});
