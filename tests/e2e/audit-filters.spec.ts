import { SignInPage } from './pages/sign-in-page';
import { expect, test } from './fixtures';

test('the audit log filters by action, actor, target and time, and the filters live in the URL', async ({ page, signIn, e2e, bullpen }) => {
  // A user added under a name no other spec uses (as `npm run users add` records it), then an admin's own sign-in.
  const guessed = `nobody-${Date.now().toString(36)}`;
  await bullpen.audit.append({ actor: 'cli:e2e', action: 'user.add', target: { kind: 'user', id: guessed }, details: { role: 'viewer' } });
  await signIn('admin', '/audit');

  const filters = page.getByTestId('audit-filters');
  await filters.getByTestId('audit-filter-action').fill('user.add');
  await filters.getByTestId('audit-filter-apply').click();
  await expect(page).toHaveURL(/\/audit\?action=user\.add$/);
  const rows = page.getByTestId('audit-row');
  await expect(rows.first()).toBeVisible();
  const actions = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action')));
  expect(new Set(actions)).toEqual(new Set(['user.add']));
  await expect(page.getByTestId('audit-summary')).toContainText('action user.add');

  // Narrowed by target, and the link alone (a reload, or a colleague) shows the same list.
  await filters.getByTestId('audit-filter-target').fill(`user:${guessed}`);
  await filters.getByTestId('audit-filter-apply').click();
  await expect(page).toHaveURL(new RegExp(`target=user%3A${guessed}`));
  await page.reload();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(guessed);
  await expect(page.getByTestId('audit-filter-target')).toHaveValue(`user:${guessed}`);

  // The action group and the actor: the admin's sign-in is an auth.* entry by the admin.
  const admin = e2e.users.admin.username;
  await page.goto(`/audit?actor=${encodeURIComponent(admin)}&action=auth&since=1h`);
  await expect(rows.first()).toBeVisible();
  const mine = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action') ?? ''));
  expect(mine.every((a) => a.startsWith('auth.'))).toBe(true);
  expect(mine).toContain('auth.sign-in');
  await expect(page.getByTestId('audit-filter-since')).toHaveValue('1h');

  // A window that ends before the run began holds none of this run's entries; a bad value is named, not obeyed.
  await page.goto(`/audit?target=${encodeURIComponent(`user:${guessed}`)}&to=2000-01-01&action=DROP%20TABLE`);
  await expect(page.getByTestId('audit-no-match')).toBeVisible();
  await expect(page.getByTestId('audit-ignored')).toContainText('action');
});

test('refused sign-ins are counted per client per minute below the audit, never as audit entries', async ({ page, signIn, bullpen }) => {
  const guessed = `nobody-${Date.now().toString(36)}`;
  const signInPage = new SignInPage(page);
  await signInPage.goto('/audit');
  for (let i = 0; i < 2; i++) {
    await signInPage.submitCredentials(guessed, `wrong-password-${i}`);
    await expect(signInPage.error).toBeVisible();
  }
  await signIn('admin', '/audit');
  const row = page.getByTestId('sign-in-failures-table').getByTestId('sign-in-failure-row').filter({ hasText: '127.0.0.1' }).first();
  await expect(row).toBeVisible();
  expect(Number(await row.getByTestId('sign-in-failure-count').textContent())).toBeGreaterThanOrEqual(2);
  const { entries } = await bullpen.audit.page({ limit: 100 });
  expect(entries.filter((e) => e.target.id === guessed)).toEqual([]);
});
