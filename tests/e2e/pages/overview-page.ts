import type { Locator, Page } from '@playwright/test';

/** `/`: tiles, throughput chart and the table of every queue. */
export class OverviewPage {
  readonly queueRows: Locator;
  readonly dlqCount: Locator;

  constructor(readonly page: Page) {
    this.queueRows = page.getByTestId('queue-row');
    this.dlqCount = page.getByTestId('overview-dlq-count');
  }

  async goto(): Promise<void> {
    await this.page.goto('/');
  }

  queueRow(name: string): Locator {
    return this.page.locator(`[data-testid="queue-row"][data-queue="${name}"]`);
  }

  queueLink(name: string): Locator {
    return this.page.getByTestId(`queue-link-${name}`);
  }
}
