import type { Locator, Page } from '@playwright/test';

/** The controls that change a schedule; a viewer must see none. */
const MUTATING = ['schedule-edit', 'schedule-pause', 'schedule-resume', 'schedule-trigger', 'schedule-reset', 'schedule-save']
  .map((id) => `[data-testid="${id}"]`)
  .join(', ');

/** One schedule's card on `/schedules`, with its inline edit form. */
export class ScheduleCard {
  readonly pattern: Locator;
  readonly timezone: Locator;
  readonly nextRuns: Locator;
  readonly editedBadge: Locator;
  readonly defaultBadge: Locator;
  readonly editButton: Locator;
  readonly form: Locator;
  readonly patternInput: Locator;
  readonly tzInput: Locator;
  readonly preview: Locator;
  readonly previewRuns: Locator;
  readonly previewDescription: Locator;
  readonly previewError: Locator;
  readonly saveButton: Locator;

  constructor(readonly root: Locator) {
    this.pattern = root.getByTestId('schedule-pattern');
    this.timezone = root.getByTestId('schedule-tz');
    this.nextRuns = root.getByTestId('schedule-next-run');
    this.editedBadge = root.getByTestId('schedule-edited');
    this.defaultBadge = root.getByTestId('schedule-default');
    this.editButton = root.getByTestId('schedule-edit');
    this.form = root.getByTestId('schedule-form');
    this.patternInput = root.getByTestId('schedule-input-pattern');
    this.tzInput = root.getByTestId('schedule-input-tz');
    this.preview = root.getByTestId('schedule-preview');
    this.previewRuns = root.getByTestId('schedule-preview-run');
    this.previewDescription = root.getByTestId('schedule-preview-description');
    this.previewError = root.getByTestId('schedule-preview-error');
    this.saveButton = root.getByTestId('schedule-save');
  }

  /** Upcoming fire times of the card (or of the preview), as ISO strings in UTC. */
  static async times(list: Locator): Promise<string[]> {
    return list.evaluateAll((items) => items.map((li) => li.getAttribute('data-at') ?? ''));
  }

  /** Every control on the card that changes the schedule; a viewer must see none. */
  mutatingControls(): Locator {
    return this.root.locator(MUTATING);
  }
}

/** `/schedules`: a card per schedule. */
export class SchedulesPage {
  readonly cards: Locator;

  constructor(readonly page: Page) {
    this.cards = page.getByTestId('schedule-row');
  }

  async goto(): Promise<void> {
    await this.page.goto('/schedules');
  }

  card(name: string): ScheduleCard {
    return new ScheduleCard(this.page.locator(`[data-testid="schedule-row"][data-schedule="${name}"]`));
  }

  /** Mutating controls on the whole page. */
  mutatingControls(): Locator {
    return this.page.locator(MUTATING);
  }
}
