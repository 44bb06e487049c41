import { expect, type Locator, type Page } from '@playwright/test';

/** `/queues/<name>/jobs/<id>`: live state, progress bar and phase, payload, actions. */
export class JobPage {
  readonly state: Locator;
  readonly progress: Locator;
  readonly phase: Locator;
  readonly returnValue: Locator;
  readonly retryButton: Locator;
  readonly promoteButton: Locator;
  readonly data: Locator;
  /** "Edit data" on a waiting, delayed or prioritized job (operators), and its form. */
  readonly editDataButton: Locator;
  readonly editDataEditor: Locator;
  readonly editDataCheck: Locator;
  readonly editDataSubmit: Locator;
  readonly editDataResult: Locator;
  /** "Duplicate…" and its form; a destructive type's typed confirmation in it, and the server's answer. */
  readonly duplicateButton: Locator;
  readonly duplicateConfirm: Locator;
  readonly duplicateConfirmErrors: Locator;
  readonly duplicateSubmit: Locator;
  readonly duplicateResult: Locator;
  /** Said instead of Retry and Duplicate to a non-admin, for a type that destroys data. */
  readonly adminOnly: Locator;
  /** The Attempts timeline (`#attempts`) and its entries, oldest first. */
  readonly attemptTimeline: Locator;
  readonly attempts: Locator;
  /** "Cancel job" on a running job (operators), its dialog's confirm, the answer, and who cancelled it. */
  readonly cancelButton: Locator;
  readonly cancelConfirm: Locator;
  readonly actionResult: Locator;
  readonly final: Locator;
  readonly cancelledBy: Locator;

  constructor(readonly page: Page) {
    this.state = page.getByTestId('job-state');
    this.progress = page.getByTestId('job-progress');
    this.phase = page.getByTestId('job-phase');
    this.returnValue = page.getByTestId('job-return-value');
    this.retryButton = page.getByTestId('job-retry');
    this.promoteButton = page.getByTestId('job-promote');
    this.data = page.getByTestId('job-data');
    this.editDataButton = page.getByTestId('job-edit-data');
    this.editDataEditor = page.getByTestId('job-edit-editor');
    this.editDataCheck = page.getByTestId('job-edit-check');
    this.editDataSubmit = page.getByTestId('job-edit-submit');
    this.editDataResult = page.getByTestId('job-edit-result');
    this.duplicateButton = page.getByTestId('job-duplicate');
    this.duplicateConfirm = page.getByTestId('job-duplicate-confirm');
    this.duplicateConfirmErrors = page.getByTestId('job-duplicate-confirm-errors');
    this.duplicateSubmit = page.getByTestId('job-duplicate-submit');
    this.duplicateResult = page.getByTestId('job-duplicate-result');
    this.adminOnly = page.getByTestId('job-admin-only');
    this.attemptTimeline = page.getByTestId('job-attempt-timeline');
    this.attempts = this.attemptTimeline.getByTestId('job-attempt');
    this.cancelButton = page.getByTestId('job-cancel');
    this.cancelConfirm = page.getByTestId('job-cancel-confirm');
    this.actionResult = page.getByTestId('action-result');
    this.final = page.getByTestId('job-final');
    this.cancelledBy = page.getByTestId('job-cancelled-by');
  }

  async goto(queue: string, id: string): Promise<void> {
    await this.page.goto(`/queues/${encodeURIComponent(queue)}/jobs/${encodeURIComponent(id)}`);
  }

  /** The bar's value, 0-100, as rendered (`data-value`). */
  async progressValue(): Promise<number> {
    return Number(await this.progress.getAttribute('data-value'));
  }

  /** Waits until the bar has shown `count` different values between 0 and 100 (a running job's progress reaching the page). */
  async expectIntermediateProgress(count = 2): Promise<void> {
    const seen = new Set<number>();
    await expect
      .poll(
        async () => {
          const v = await this.progressValue();
          if (v > 0 && v < 100) seen.add(v);
          return seen.size;
        },
        { message: `the bar takes at least ${count} intermediate values`, timeout: 30_000, intervals: [250] },
      )
      .toBeGreaterThanOrEqual(count);
  }

  /** The job's state as the page shows it (`data-status` of its pill). */
  async stateName(): Promise<string | null> {
    return this.state.getAttribute('data-status');
  }

  /** Every control on the page that changes the job; a viewer must see none. */
  mutatingControls(): Locator {
    return this.page.locator(
      ['job-retry', 'job-promote', 'job-duplicate', 'job-edit-data', 'job-remove'].map((id) => `[data-testid="${id}"]`).join(', '),
    );
  }
}
