import type { PercentileEstimate } from '@/lib/metrics/history-buckets';

/**
 * A percentile estimate as an operator reads it: two significant digits in the unit that
 * fits (ms, s, min, h), and "≥" for a value in the open-ended top bucket. Pure, client-safe.
 */
export function formatLatency(est: PercentileEstimate | null | undefined): string {
  if (!est) return '—';
  return `${est.atLeast ? '≥ ' : ''}${formatMs(est.ms)}`;
}

const UNITS: Array<[divisor: number, unit: string]> = [
  [1, 'ms'],
  [1_000, 's'],
  [60_000, 'min'],
  [3_600_000, 'h'],
];

export function formatMs(ms: number): string {
  if (ms < 1) return '< 1 ms';
  for (let i = 0; i < UNITS.length; i++) {
    const [divisor, unit] = UNITS[i];
    // Rounded first, so 999.7 ms reads "1 s", not "1000 ms".
    const value = Number((ms / divisor).toPrecision(2));
    const next = UNITS[i + 1];
    if (!next || value * divisor < next[0]) return `${value} ${unit}`;
  }
  return `${ms} ms`;
}
