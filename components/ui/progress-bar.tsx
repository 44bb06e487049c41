/**
 * A progress bar with its number in words beside it. `role="progressbar"` with
 * aria values; `data-testid` (default "progress-bar") and `data-value` for tests.
 */
export function ProgressBar({ value, label, testId = 'progress-bar' }: { value: number; label?: string; testId?: string }) {
  const pct = Math.max(0, Math.min(100, Math.round(Number.isFinite(value) ? value : 0)));
  return (
    <div className="stack" style={{ minWidth: '8rem' }}>
      <div
        className={`progress${pct >= 100 ? ' done' : ''}`}
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
        aria-label={label ?? 'Progress'}
        data-testid={testId}
        data-value={pct}
      >
        <div style={{ width: `${pct}%` }} />
      </div>
      <span className="small muted">
        {pct}%{label ? ` · ${label}` : ''}
      </span>
    </div>
  );
}
