/**
 * A tiny inline SVG line of `points` (oldest first); no chart library, so a table of
 * 18 queues renders 36 of them cheaply on the server.
 */
export function Sparkline({
  points,
  label,
  color = 'var(--accent)',
  max,
  testId,
}: {
  points: number[];
  label: string;
  color?: string;
  max?: number;
  testId?: string;
}) {
  const w = 120;
  const h = 32;
  const top = Math.max(max ?? 0, ...points, 1e-9);
  const step = points.length > 1 ? w / (points.length - 1) : w;
  const d = points
    .map((v, i) => `${i === 0 ? 'M' : 'L'}${(i * step).toFixed(1)},${(h - 2 - (Math.max(0, v) / top) * (h - 4)).toFixed(1)}`)
    .join(' ');
  return (
    <svg className="sparkline" viewBox={`0 0 ${w} ${h}`} preserveAspectRatio="none" role="img" aria-label={label} data-testid={testId}>
      <title>{label}</title>
      {points.length > 0 && <path d={d} fill="none" stroke={color} strokeWidth="1.5" vectorEffect="non-scaling-stroke" />}
    </svg>
  );
}
