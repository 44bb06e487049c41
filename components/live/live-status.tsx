'use client';

/** A small "live · updated 3 s ago / paused / error" indicator for a polled widget. */
export function LiveStatus({ updatedAt, error, fetching }: { updatedAt: number; error: Error | null; fetching: boolean }) {
  if (error) {
    return (
      <span className="small" role="status" style={{ color: 'var(--danger)' }} data-testid="live-status" data-live="error">
        Live update failed: {error.message}
      </span>
    );
  }
  const t = updatedAt ? new Date(updatedAt).toLocaleTimeString('en-GB') : '—';
  return (
    <span className="small muted" data-testid="live-status" data-live={fetching ? 'fetching' : 'idle'}>
      ● live · updated {t}
    </span>
  );
}
