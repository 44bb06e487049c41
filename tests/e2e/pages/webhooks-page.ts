import type { Locator, Page } from '@playwright/test';

/** `/webhooks` and `/webhooks/<id>`: the registry, one webhook's state and deliveries, and mending it. */
export class WebhooksPage {
  readonly rows: Locator;
  readonly detail: Locator;
  readonly url: Locator;
  readonly state: Locator;
  readonly disabledReason: Locator;
  readonly failures: Locator;
  readonly deliveries: Locator;
  readonly pending: Locator;
  readonly actions: Locator;
  readonly enableButton: Locator;
  readonly enableConfirm: Locator;
  readonly testButton: Locator;
  readonly replayButton: Locator;
  readonly replayLimit: Locator;
  readonly result: Locator;

  constructor(readonly page: Page) {
    this.rows = page.getByTestId('webhook-row');
    this.detail = page.getByTestId('webhook-detail');
    this.url = this.detail.getByTestId('webhook-url');
    this.state = this.detail.getByTestId('webhook-state');
    this.disabledReason = this.detail.getByTestId('webhook-disabled-reason');
    this.failures = this.detail.getByTestId('webhook-failures');
    this.deliveries = page.getByTestId('webhook-delivery');
    this.pending = page.getByTestId('webhook-pending');
    this.actions = page.getByTestId('webhook-actions');
    this.enableButton = page.getByTestId('webhook-enable');
    this.enableConfirm = page.getByTestId('webhook-enable-confirm');
    this.testButton = page.getByTestId('webhook-test');
    this.replayButton = page.getByTestId('webhook-replay-dead-letters');
    this.replayLimit = page.getByTestId('webhook-replay-limit');
    this.result = page.getByTestId('action-result');
  }

  async gotoList(): Promise<void> {
    await this.page.goto('/webhooks');
  }

  async goto(id: string): Promise<void> {
    await this.page.goto(`/webhooks/${encodeURIComponent(id)}`);
  }

  row(id: string): Locator {
    return this.page.locator(`[data-testid="webhook-row"][data-id="${id}"]`);
  }

  async reenable(): Promise<void> {
    await this.enableButton.click();
    await this.enableConfirm.click();
  }
}
