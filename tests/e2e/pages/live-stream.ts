import type { Locator, Page, Request } from '@playwright/test';

/**
 * The tab's live stream as the page shows it: each live widget's marker (`data-stream`:
 * open, polling, connecting, off) and the notice on top while the stream is down. It also
 * records the tab's polls (GETs of live routes other than the stream), to show that what
 * changed on the page came pushed.
 */
export class LiveStream {
  readonly status: Locator;
  readonly notice: Locator;
  private readonly polls: string[] = [];
  private recording = false;

  constructor(readonly page: Page) {
    this.status = page.getByTestId('live-status').first();
    this.notice = page.getByTestId('stream-notice');
    page.on('request', (r: Request) => {
      if (!this.recording || r.method() !== 'GET') return;
      const url = new URL(r.url());
      if (url.pathname.startsWith('/api/live/') && url.pathname !== '/api/live/stream') this.polls.push(url.pathname + url.search);
    });
  }

  /** Starts noting the tab's polls from now. */
  recordPolls(): void {
    this.polls.length = 0;
    this.recording = true;
  }

  /** The polls noted since `recordPolls`. */
  polled(): string[] {
    return [...this.polls];
  }
}
