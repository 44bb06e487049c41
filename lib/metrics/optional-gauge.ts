import type { MetricObjectWithValues, MetricValueWithName } from 'prom-client';

/**
 * A gauge without labels that can have no sample: prom-client's own Gauge always renders
 * one (0 until set), and a DLQ size of 0 read during an outage would be a lie. Registered
 * like the duration histogram, in the shape prom-client's registry renders.
 */
export class OptionalGauge {
  readonly type = 'gauge';
  readonly aggregator = 'sum';
  private value?: number;

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  /** The sample to render, or undefined for none. */
  set(value: number | undefined): void {
    this.value = value;
  }

  async get(): Promise<Omit<MetricObjectWithValues<MetricValueWithName<string>>, 'collect'>> {
    const values: MetricValueWithName<string>[] =
      this.value === undefined ? [] : [{ metricName: this.name, labels: {}, value: this.value }];
    return { name: this.name, help: this.help, type: 'gauge' as never, values, aggregator: 'sum' };
  }

  reset(): void {
    this.value = undefined;
  }
}
