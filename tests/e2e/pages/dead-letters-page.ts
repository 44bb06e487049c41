import type { Locator, Page } from '@playwright/test';

/** Row controls carry the entry id, and entry ids start with `dlq-`: `dlq-replay-dlq-…`. */
const MUTATING = [
  '[data-testid^="dlq-replay-dlq-"]',
  '[data-testid^="dlq-discard-dlq-"]',
  '[data-testid^="dlq-select-dlq-"]',
  ...[
    'dlq-select-all',
    'dlq-replay-selected',
    'dlq-discard-selected',
    'dlq-replay-all',
    'dlq-replay-all-limit',
    'dlq-purge',
    'dlq-detail-replay',
    'dlq-detail-discard',
    'dlq-payload-editor',
    'dlq-replay-edited',
    'dlq-payload-reset',
  ].map((id) => `[data-testid="${id}"]`),
].join(', ');

/** `/dead-letters` (the filtered list) and `/dead-letters/<id>` (one entry). */
export class DeadLettersPage {
  readonly rows: Locator;
  readonly total: Locator;
  readonly detailStatus: Locator;
  readonly replayHistory: Locator;
  readonly replayRows: Locator;
  readonly detailReplayButton: Locator;
  /** A destructive type's replay: the dialog's typed org, its confirm button, and what a non-admin is told instead. */
  readonly detailConfirm: Locator;
  readonly detailReplayConfirm: Locator;
  readonly detailAdminOnly: Locator;
  readonly detailResult: Locator;
  readonly payloadForm: Locator;
  readonly selectedLeftOut: Locator;
  readonly replaySelectedButton: Locator;

  constructor(readonly page: Page) {
    this.rows = page.getByTestId('dlq-row');
    this.total = page.getByTestId('dlq-total');
    this.detailStatus = page.getByTestId('dlq-detail-status');
    this.replayHistory = page.getByTestId('dlq-replay-history');
    this.replayRows = page.getByTestId('dlq-replay-row');
    this.detailReplayButton = page.getByTestId('dlq-detail-replay');
    this.detailConfirm = page.getByTestId('dlq-detail-confirm');
    this.detailReplayConfirm = page.getByTestId('dlq-detail-replay-confirm');
    this.detailAdminOnly = page.getByTestId('dlq-detail-admin-only');
    this.detailResult = page.getByTestId('dlq-detail-actions').getByTestId('action-result');
    this.payloadForm = page.getByTestId('dlq-payload-form');
    this.selectedLeftOut = page.getByTestId('dlq-selected-left-out');
    this.replaySelectedButton = page.getByTestId('dlq-replay-selected');
  }

  /** The list, filtered by the query string (e.g. `type=webhook-dispatch`). */
  async goto(query = ''): Promise<void> {
    await this.page.goto(`/dead-letters${query ? `?${query}` : ''}`);
  }

  async gotoEntry(id: string): Promise<void> {
    await this.page.goto(`/dead-letters/${encodeURIComponent(id)}`);
  }

  row(id: string): Locator {
    return this.page.locator(`[data-testid="dlq-row"][data-id="${id}"]`);
  }

  replayButton(id: string): Locator {
    return this.page.getByTestId(`dlq-replay-${id}`);
  }

  /** A destructive row's typed org (in its replay dialog), the dialog's Replay, and the admin-only note. */
  rowConfirm(id: string): Locator {
    return this.page.getByTestId(`dlq-confirm-${id}`);
  }

  rowReplayConfirm(id: string): Locator {
    return this.page.getByTestId(`dlq-replay-${id}-confirm`);
  }

  rowAdminOnly(id: string): Locator {
    return this.page.getByTestId(`dlq-admin-only-${id}`);
  }

  selectBox(id: string): Locator {
    return this.page.getByTestId(`dlq-select-${id}`);
  }

  discardButton(id: string): Locator {
    return this.page.getByTestId(`dlq-discard-${id}`);
  }

  entryLink(id: string): Locator {
    return this.page.getByTestId(`dlq-link-${id}`);
  }

  /** A replay in the entry's history, by the job it enqueued. */
  replayRow(jobId: string): Locator {
    return this.page.locator(`[data-testid="dlq-replay-row"][data-job-id="${jobId}"]`);
  }

  /** Every control on the list or entry page that changes something; a viewer must see none. */
  mutatingControls(): Locator {
    return this.page.locator(MUTATING);
  }
}
