import type { PercentileEstimate } from '../metrics/history-buckets';

/**
 * A percentile estimate as an operator reads it: two significant digits in the unit that
 * fits (ms, s, min, h), and "≥" for a value in the open-ended top bucket. Pure, client-safe.
 */
export function formatLatency(est: PercentileEstimate | null | undefined): string {
  if (!est) return '—';
  return `${est.atLeast ? '≥ ' : ''}${formatMs(est.ms)}`;
}

export function formatMs(ms: number): string {
  if (ms < 1) return '< 1 ms';
  if (ms < 1_000) return `${round2(ms)} ms`;
  if (ms < 60_000) return `${round2(ms / 1_000)} s`;
  if (ms < 3_600_000) return `${round2(ms / 60_000)} min`;
  return `${round2(ms / 3_600_000)} h`;
}

/** Two significant digits, without a trailing ".0". */
function round2(n: number): string {
  return String(Number(n.toPrecision(2)));
}
