import { AppShell } from './pages/app-shell';
import { OverviewPage } from './pages/overview-page';
import { SignInPage } from './pages/sign-in-page';
import { expect, saveScreenshot, test } from './fixtures';

test('a wrong password is refused, the right one lands on the overview, sign-out returns to sign-in', async ({ page, e2e }) => {
  const admin = e2e.users.admin;
  const signIn = new SignInPage(page);

  // Signed out, a page sends you to sign in.
  await page.goto('/');
  await expect(page).toHaveURL(/\/sign-in/);
  await expect(signIn.form).toBeVisible();

  await signIn.submitCredentials(admin.username, `${admin.password}-wrong`);
  await expect(signIn.error).toContainText('Wrong user name or password');
  await expect(page).toHaveURL(/\/sign-in/);
  await saveScreenshot(page, 'sign-in-refused');

  await signIn.submitCredentials(admin.username, admin.password);
  await expect(page).toHaveURL((url) => url.pathname === '/');
  const shell = new AppShell(page);
  await expect(shell.currentUser).toContainText(admin.username);
  await expect(shell.currentUser).toContainText('admin');
  const overview = new OverviewPage(page);
  // One row per job type: the dashboard lists every queue.
  await expect(overview.queueRow('webhook-dispatch')).toBeVisible();
  await expect(overview.queueRow('embedding-batch')).toBeVisible();
  await saveScreenshot(page, 'sign-in-overview');

  await shell.signOut();
  await expect(page).toHaveURL(/\/sign-in/);
  await expect(signIn.form).toBeVisible();
  // The session is gone, not just the page: the overview asks for sign-in again.
  await page.goto('/');
  await expect(page).toHaveURL(/\/sign-in/);
});
