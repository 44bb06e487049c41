import { expect, type Locator, type Page } from '@playwright/test';

export type NavItem = 'overview' | 'queues' | 'dead-letters' | 'webhooks' | 'schedules' | 'health' | 'audit';

/** The header of every signed-in page: who is signed in, the navigation, sign-out. */
export class AppShell {
  readonly currentUser: Locator;
  readonly signOutButton: Locator;

  constructor(readonly page: Page) {
    this.currentUser = page.getByTestId('current-user');
    this.signOutButton = page.getByTestId('sign-out');
  }

  nav(item: NavItem): Locator {
    return this.page.getByTestId(`nav-${item}`);
  }

  /**
   * Signs out and waits for the server's redirect to the sign-in page: a navigation the
   * caller starts before it lands is aborted by it (net::ERR_ABORTED under load).
   */
  async signOut(): Promise<void> {
    await this.signOutButton.click();
    await expect(this.page).toHaveURL(/\/sign-in(\?|$)/);
  }
}
