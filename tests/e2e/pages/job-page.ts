import type { Locator, Page } from '@playwright/test';

/** `/queues/<name>/jobs/<id>`: live state, progress bar and phase, payload, actions. */
export class JobPage {
  readonly state: Locator;
  readonly progress: Locator;
  readonly phase: Locator;
  readonly returnValue: Locator;
  readonly retryButton: Locator;

  constructor(readonly page: Page) {
    this.state = page.getByTestId('job-state');
    this.progress = page.getByTestId('job-progress');
    this.phase = page.getByTestId('job-phase');
    this.returnValue = page.getByTestId('job-return-value');
    this.retryButton = page.getByTestId('job-retry');
  }

  async goto(queue: string, id: string): Promise<void> {
    await this.page.goto(`/queues/${encodeURIComponent(queue)}/jobs/${encodeURIComponent(id)}`);
  }

  /** The bar's value, 0-100, as rendered (`data-value`). */
  async progressValue(): Promise<number> {
    return Number(await this.progress.getAttribute('data-value'));
  }

  /** The job's state as the page shows it (`data-status` of its pill). */
  async stateName(): Promise<string | null> {
    return this.state.getAttribute('data-status');
  }

  /** Every control on the page that changes the job; a viewer must see none. */
  mutatingControls(): Locator {
    return this.page.locator(['job-retry', 'job-promote', 'job-duplicate', 'job-remove'].map((id) => `[data-testid="${id}"]`).join(', '));
  }
}
