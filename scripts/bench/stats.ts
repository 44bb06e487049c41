/** Small, dependency-free statistics for the benchmark reports. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/**
 * The median of the rounds' own ratios, a[i] / b[i]: each round ran its sides back to back,
 * so its ratio cancels what the machine was doing then, which a ratio of the two sides'
 * medians, taken from different rounds, does not.
 */
export function pairedRatio(a: number[], b: number[]): number {
  return median(a.map((x, i) => x / b[i]));
}

export function fmt(n: number, digits = 1): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** A positive integer from the environment (a benchmark's size knob), else `fallback`; anything else is refused. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}
