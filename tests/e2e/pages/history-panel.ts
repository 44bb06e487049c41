import type { Locator, Page } from '@playwright/test';
import type { HistoryRange } from '@/dashboard/client/history-range';

/** The history card (`#history`) of the overview or a queue page: range links, chart, percentiles. */
export class HistoryPanel {
  readonly card: Locator;
  readonly chart: Locator;
  readonly caption: Locator;
  readonly ignored: Locator;

  constructor(readonly page: Page) {
    this.card = page.getByTestId('history');
    this.chart = this.card.getByTestId('throughput-chart');
    this.caption = this.card.getByTestId('history-caption');
    this.ignored = this.card.getByTestId('history-ignored');
  }

  rangeLink(range: HistoryRange): Locator {
    return this.card.getByTestId(`history-range-${range}`);
  }

  latencyRow(queue: string): Locator {
    return this.card.locator(`[data-testid="history-latency-row"][data-queue="${queue}"]`);
  }

  /** One percentile cell of a row: `kind` duration (run time) or wait. */
  percentile(queue: string, kind: 'duration' | 'wait', p: 'p50' | 'p95' | 'p99'): Locator {
    return this.latencyRow(queue).getByTestId(`history-${kind}-${p}`);
  }
}
