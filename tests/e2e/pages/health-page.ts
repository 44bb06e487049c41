import type { Locator, Page } from '@playwright/test';

/** `/health`: the overall status and one card per check, refreshed live. */
export class HealthPage {
  readonly overall: Locator;
  readonly overallSentence: Locator;

  constructor(readonly page: Page) {
    this.overall = page.getByTestId('health-overall');
    this.overallSentence = page.getByTestId('health-overall-sentence');
  }

  async goto(): Promise<void> {
    await this.page.goto('/health');
  }

  /** A check's card (`redis`, `workers`, `queues`, `deadLetters`); its status is `data-status`. */
  check(name: string): Locator {
    return this.page.getByTestId(`health-check-${name}`);
  }
}
