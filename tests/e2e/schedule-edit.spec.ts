import { JobSchedulerSync } from '@/lib/schedules/job-scheduler-sync';
import { ScheduleCard, SchedulesPage } from './pages/schedules-page';
import { expect, saveScreenshot, test } from './fixtures';

const NAME = 'index-optimization'; // default `0 0 3 * * *` UTC: daily at 03:00
const EDITED = '0 45 2 * * *'; // daily at 02:45
const at = (hhmm: string) => new RegExp(`T${hhmm}:00\\.000Z$`);

test.afterEach(async ({ bullpen, workerProcess }) => {
  // Leave the schedule as the code defines it, and a worker running, whatever happened.
  await workerProcess.ensureRunning();
  if ((await bullpen.schedules.get(NAME)).edited) await bullpen.schedules.resetToDefault(NAME, 'e2e-cleanup');
});

test('edit a cron schedule, preview its next fire times, save, restart the worker and find the edit still there', async ({
  page,
  signIn,
  bullpen,
  workerProcess,
}) => {
  await signIn('operator', '/schedules');
  const schedules = new SchedulesPage(page);
  const card = schedules.card(NAME);
  await expect(card.pattern).toHaveText('0 0 3 * * *');
  await expect(card.defaultBadge).toBeVisible();
  await expect(card.nextRuns).toHaveCount(5);
  for (const t of await ScheduleCard.times(card.nextRuns)) expect(t).toMatch(at('03:00'));

  await card.editButton.click();
  await expect(card.form).toBeVisible();
  // The preview follows the pattern as it is typed.
  await expect(card.preview).toHaveAttribute('data-ok', 'true');
  await card.patternInput.fill('0 99 2 * * *');
  await expect(card.previewError).toBeVisible();
  await expect(card.saveButton).toBeDisabled();
  // Every second is valid but rarely meant: said before saving, not refused.
  await card.patternInput.fill('* * * * * *');
  await expect(card.form.getByTestId('schedule-preview-warning')).toContainText('every 1 s');
  await card.patternInput.fill(EDITED);
  await expect(card.preview).toHaveAttribute('data-ok', 'true');
  await expect(card.form.getByTestId('schedule-preview-warning')).toHaveCount(0);
  await expect(card.previewRuns).toHaveCount(5);
  await expect.poll(() => ScheduleCard.times(card.previewRuns)).toEqual(expect.arrayContaining([expect.stringMatching(at('02:45'))]));
  const previewed = await ScheduleCard.times(card.previewRuns);
  for (const t of previewed) expect(t).toMatch(at('02:45'));
  await expect(card.previewDescription).toContainText('02:45');
  await saveScreenshot(page, 'schedule-preview');

  await expect(card.saveButton).toBeEnabled();
  await card.saveButton.click();
  await expect(card.form).toBeHidden();
  await expect(card.pattern).toHaveText(EDITED);
  await expect(card.editedBadge).toContainText('e2e-operator');
  // The code's description names the default timing; the card says what runs now.
  await expect(page.getByTestId('schedule-timing-note')).toContainText('02:45');
  expect(await ScheduleCard.times(card.nextRuns)).toEqual(previewed);

  // Restart the worker: SIGTERM, a clean exit, a new process that applies the schedules at boot.
  const exit = await workerProcess.stop();
  expect(exit).toEqual({ code: 0, signal: null });
  await workerProcess.start();

  await page.reload();
  await expect(card.pattern).toHaveText(EDITED);
  await expect(card.editedBadge).toBeVisible();
  await expect(card.timezone).toHaveText('UTC');
  await expect(card.nextRuns).toHaveCount(5);
  for (const t of await ScheduleCard.times(card.nextRuns)) expect(t).toMatch(at('02:45'));
  // What fires is BullMQ's Job Scheduler: after the restart's bootstrap it holds the edit, and its next job is at 02:45.
  const scheduler = await new JobSchedulerSync(bullpen.queues).read(NAME, 'index-optimization');
  expect(scheduler?.pattern).toBe(EDITED);
  expect(new Date(scheduler!.next!).toISOString()).toBe(previewed[0]);
  await saveScreenshot(page, 'schedule-after-restart');
});
