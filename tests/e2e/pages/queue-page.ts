import type { Locator, Page } from '@playwright/test';

/** `/queues/<name>`: state tabs, one page of jobs, queue-wide and per-job actions. */
export class QueuePage {
  readonly jobRows: Locator;
  readonly pauseButton: Locator;
  readonly resumeButton: Locator;
  readonly promoteAllButton: Locator;
  readonly retryAllButton: Locator;
  readonly retrySelectedButton: Locator;
  /** Retry all's confirmation: what it will retry and skip (`data-retry`, `data-skip`), and its confirm button. */
  readonly retryAllPreview: Locator;
  readonly retryAllConfirm: Locator;
  /** A background operation's progress (`data-status`, `data-succeeded`, `data-skipped`, `data-failed`). */
  readonly bulkProgress: Locator;
  readonly cleanButton: Locator;
  readonly selectAll: Locator;
  /** The throughput-limits card: values for everyone, forms for operators. */
  readonly throughput: Locator;
  readonly concurrencyValue: Locator;
  readonly rateLimitValue: Locator;
  readonly concurrencyInput: Locator;
  readonly setConcurrencyButton: Locator;
  readonly removeConcurrencyButton: Locator;
  readonly rateMaxInput: Locator;
  readonly rateWindowInput: Locator;
  readonly rateUnit: Locator;
  readonly setRateLimitButton: Locator;
  readonly removeRateLimitButton: Locator;
  readonly throughputResult: Locator;

  constructor(
    readonly page: Page,
    readonly queue: string,
  ) {
    this.jobRows = page.getByTestId('job-row');
    this.pauseButton = page.getByTestId('pause-queue');
    this.resumeButton = page.getByTestId('resume-queue');
    this.promoteAllButton = page.getByTestId('promote-all');
    this.retryAllButton = page.getByTestId('retry-all');
    this.retrySelectedButton = page.getByTestId('retry-selected');
    this.retryAllPreview = page.getByTestId('retry-all-preview');
    this.retryAllConfirm = page.getByTestId('retry-all-confirm');
    this.bulkProgress = page.getByTestId('bulk-progress');
    this.cleanButton = page.getByTestId('clean-queue');
    this.selectAll = page.getByTestId('select-all-jobs');
    this.throughput = page.getByTestId('queue-throughput');
    this.concurrencyValue = page.getByTestId('throughput-concurrency');
    this.rateLimitValue = page.getByTestId('throughput-rate-limit');
    this.concurrencyInput = page.getByTestId('throughput-concurrency-input');
    this.setConcurrencyButton = page.getByTestId('throughput-concurrency-set');
    this.removeConcurrencyButton = page.getByTestId('throughput-concurrency-remove');
    this.rateMaxInput = page.getByTestId('throughput-rate-max');
    this.rateWindowInput = page.getByTestId('throughput-rate-window');
    this.rateUnit = page.getByTestId('throughput-rate-unit');
    this.setRateLimitButton = page.getByTestId('throughput-rate-set');
    this.removeRateLimitButton = page.getByTestId('throughput-rate-remove');
    this.throughputResult = page.getByTestId('throughput-result');
  }

  async goto(state?: string): Promise<void> {
    await this.page.goto(`/queues/${encodeURIComponent(this.queue)}${state ? `?state=${state}` : ''}`);
  }

  stateTab(state: string): Locator {
    return this.page.getByTestId(`queue-state-tab-${state}`);
  }

  jobRow(id: string): Locator {
    return this.page.locator(`[data-testid="job-row"][data-job-id="${id}"]`);
  }

  jobLink(id: string): Locator {
    return this.page.getByTestId(`job-link-${id}`);
  }

  retryJobButton(id: string): Locator {
    return this.page.getByTestId(`retry-job-${id}`);
  }

  /** The mark of a failed job whose Retry would be refused (`data-why`, `data-replayed-as`). */
  retryMark(id: string): Locator {
    return this.jobRow(id).getByTestId('job-row-retry-mark');
  }

  /** Every control on the page that changes something; a viewer must see none. */
  mutatingControls(): Locator {
    return this.page.locator(
      [
        '[data-testid="pause-queue"]',
        '[data-testid="resume-queue"]',
        '[data-testid="promote-all"]',
        '[data-testid="retry-all"]',
        '[data-testid="retry-selected"]',
        '[data-testid="clean-queue"]',
        '[data-testid="select-all-jobs"]',
        '[data-testid^="retry-job-"]',
        '[data-testid^="job-select-"]',
        '[data-testid="add-job-open"]',
        '[data-testid="add-job-form"]',
        '[data-testid="throughput-concurrency-form"]',
        '[data-testid="throughput-rate-form"]',
      ].join(', '),
    );
  }

  /** The "Add a job" form, opened from its button. */
  async openAddJob(): Promise<AddJobForm> {
    await this.page.getByTestId('add-job-open').click();
    const form = new AddJobForm(this.page);
    await form.root.waitFor();
    return form;
  }
}

/** The queue page's "Add a job" form: the payload editor and its live check, priority, delay, tenant. */
export class AddJobForm {
  readonly root: Locator;
  readonly payload: Locator;
  readonly check: Locator;
  readonly priority: Locator;
  readonly delay: Locator;
  readonly delayUnit: Locator;
  readonly orgId: Locator;
  readonly orgIdErrors: Locator;
  readonly workspaceId: Locator;
  /** A destructive type's typed confirmation (the org id), and what the server said of it. */
  readonly confirm: Locator;
  readonly confirmErrors: Locator;
  readonly submit: Locator;
  readonly result: Locator;
  /** What the server said when it refused the add (the form's inline result). */
  readonly refusal: Locator;
  readonly addedLink: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId('add-job-form');
    this.payload = page.getByTestId('add-job-payload');
    this.check = page.getByTestId('add-job-check');
    this.priority = page.getByTestId('add-job-priority');
    this.delay = page.getByTestId('add-job-delay');
    this.delayUnit = page.getByTestId('add-job-delay-unit');
    this.orgId = page.getByTestId('add-job-org');
    this.orgIdErrors = page.getByTestId('add-job-org-errors');
    this.workspaceId = page.getByTestId('add-job-workspace');
    this.confirm = page.getByTestId('add-job-confirm');
    this.confirmErrors = page.getByTestId('add-job-confirm-errors');
    this.submit = page.getByTestId('add-job-submit');
    this.result = page.getByTestId('add-job-result');
    this.refusal = this.root.getByTestId('action-result');
    this.addedLink = page.getByTestId('added-job-link');
  }

  /** The id of the job the last add made, from the result's link. */
  async addedJobId(): Promise<string> {
    const href = (await this.addedLink.getAttribute('href')) ?? '';
    return decodeURIComponent(href.split('/').pop() ?? '');
  }
}
