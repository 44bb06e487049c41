import type { Locator, Page } from '@playwright/test';

/** `/alerts`: firing and resolved alerts, the channels and the rules. */
export class AlertsPage {
  readonly firing: Locator;
  readonly channelForm: Locator;
  readonly rules: Locator;

  constructor(readonly page: Page) {
    this.firing = page.getByTestId('alerts-firing');
    this.channelForm = page.getByTestId('channel-form');
    this.rules = page.getByTestId('alert-rules');
  }

  async goto(): Promise<void> {
    await this.page.goto('/alerts');
  }

  alert(key: string): Locator {
    return this.page.getByTestId(`alert-${key}`);
  }

  channel(id: string): Locator {
    return this.page.getByTestId(`channel-${id}`);
  }

  async addSlackChannel(id: string, name: string, url: string): Promise<void> {
    await this.channelForm.getByTestId('channel-kind').selectOption('slack');
    await this.channelForm.getByTestId('channel-id').fill(id);
    await this.channelForm.getByTestId('channel-name').fill(name);
    await this.channelForm.getByTestId('channel-url').fill(url);
    await this.channelForm.getByTestId('channel-save').click();
  }
}
