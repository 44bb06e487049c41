/** Numbers as an operator reads them: 1,234,567; rates with one decimal. */
export function formatCount(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : n.toLocaleString('en');
}

export function formatRate(perMin: number): string {
  return perMin >= 100 ? Math.round(perMin).toLocaleString('en') : perMin.toFixed(1);
}

export function formatPercent(ratio: number): string {
  return `${(ratio * 100).toFixed(ratio > 0 && ratio < 0.01 ? 2 : 1)}%`;
}
