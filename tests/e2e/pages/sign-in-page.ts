import { expect, type Locator, type Page } from '@playwright/test';

/** `/sign-in`: the form, its error, and signing in. */
export class SignInPage {
  readonly form: Locator;
  readonly username: Locator;
  readonly password: Locator;
  readonly submit: Locator;
  readonly error: Locator;

  constructor(readonly page: Page) {
    this.form = page.getByTestId('sign-in-form');
    this.username = page.getByTestId('sign-in-username');
    this.password = page.getByTestId('sign-in-password');
    this.submit = page.getByTestId('sign-in-submit');
    this.error = page.getByTestId('sign-in-error');
  }

  async goto(next?: string): Promise<void> {
    await this.page.goto(next ? `/sign-in?next=${encodeURIComponent(next)}` : '/sign-in');
    await expect(this.form).toBeVisible();
  }

  /** Fills and submits the form; the caller asserts where it lands. */
  async submitCredentials(username: string, password: string): Promise<void> {
    await this.username.fill(username);
    await this.password.fill(password);
    await this.submit.click();
  }
}
