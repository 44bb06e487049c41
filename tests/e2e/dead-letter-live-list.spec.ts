import { DeadLettersPage } from './pages/dead-letters-page';
import { cleanUpDeliveries, failWebhookDelivery, type FailedDelivery } from './support/dead-letters';
import { WebhookReceiver } from './support/webhook-receiver';
import { expect, test } from './fixtures';

let receiver: WebhookReceiver | undefined;
const failures: FailedDelivery[] = [];

test.afterEach(async ({ bullpen }) => {
  await receiver?.close();
  receiver = undefined;
  await cleanUpDeliveries(bullpen, failures);
});

test('the live dead-letter list holds its rows still while a row is selected or hovered, and announces new ones', async ({
  page,
  signIn,
  bullpen,
}) => {
  receiver = await WebhookReceiver.start(400);
  const fail = async (event: string) => {
    const f = await failWebhookDelivery(bullpen, receiver!, event);
    failures.push(f);
    return f;
  };
  const [first, second] = [await fail('e2e.held-1'), await fail('e2e.held-2')];

  await signIn('operator', '/dead-letters?type=webhook-dispatch&status=pending');
  const dlq = new DeadLettersPage(page);
  await expect(dlq.row(second.entry.id)).toBeVisible();
  const ids = () => dlq.rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-id')));
  const before = await ids();

  // Selected: a new failure waits behind an announcement, and a row that left the filter stays in its place.
  await page.getByTestId(`dlq-select-${first.entry.id}`).check();
  const third = await fail('e2e.held-3');
  await bullpen.dlq.discard(second.entry.id, 'someone-else');
  const arrived = page.getByTestId('dlq-arrived');
  await expect(arrived).toContainText('1 new dead letter matches these filters');
  await expect(dlq.row(second.entry.id)).toHaveAttribute('data-departed', 'true');
  await expect(dlq.row(second.entry.id)).toContainText('no longer in this list');
  await expect(dlq.row(second.entry.id).getByTestId(`dlq-select-${second.entry.id}`)).toBeDisabled();
  expect(await ids()).toEqual(before);
  await expect(dlq.row(third.entry.id)).toHaveCount(0);

  // Asked for, the new row shows at the top and the departed one goes.
  await page.getByTestId('dlq-show-arrived').click();
  await expect(dlq.rows.first()).toHaveAttribute('data-id', third.entry.id);
  await expect(dlq.row(second.entry.id)).toHaveCount(0);
  await expect(page.getByTestId('dlq-new-announcement')).toHaveText('1 new dead letter matches these filters');
  await expect(page.getByTestId(`dlq-select-${first.entry.id}`)).toBeChecked();

  // Hovered, with nothing selected: held the same way; once the pointer leaves, the row comes in and is announced.
  await page.getByTestId(`dlq-select-${first.entry.id}`).uncheck();
  await dlq.row(first.entry.id).hover();
  const heldOrder = await ids();
  const fourth = await fail('e2e.held-4');
  await expect(arrived).toBeVisible();
  expect(await ids()).toEqual(heldOrder);
  await page.mouse.move(1, 1);
  await page.getByRole('heading', { name: 'Dead letters', level: 1 }).click();
  await expect(dlq.rows.first()).toHaveAttribute('data-id', fourth.entry.id);
  await expect(arrived).toHaveCount(0);
  await expect(page.getByTestId('dlq-new-announcement')).toHaveText('1 new dead letter matches these filters');

  // Hovered again, the pointer goes to the notice's button and rests there: the notice is inside
  // the hold, so the rows stay held (a later failure joins the notice) and the button stays to click.
  await dlq.row(fourth.entry.id).hover();
  const fifth = await fail('e2e.held-5');
  await expect(arrived).toContainText('1 new dead letter matches these filters');
  const show = page.getByTestId('dlq-show-arrived');
  const box = (await show.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 5 });
  const sixth = await fail('e2e.held-6');
  await expect(arrived).toContainText('2 new dead letters match these filters');
  expect((await ids())[0]).toBe(fourth.entry.id);
  await show.click();
  await expect(dlq.rows.first()).toHaveAttribute('data-id', sixth.entry.id);
  await expect(dlq.rows.nth(1)).toHaveAttribute('data-id', fifth.entry.id);
  await expect(arrived).toHaveCount(0);
});
