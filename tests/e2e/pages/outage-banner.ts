import type { Locator, Page } from '@playwright/test';

/** The outage banner on top of every signed-in page, and the live marker of a polled widget. */
export class OutageBanner {
  readonly banner: Locator;
  readonly liveStatus: Locator;

  constructor(readonly page: Page) {
    this.banner = page.getByTestId('redis-banner');
    this.liveStatus = page.getByTestId('live-status').first();
  }
}
