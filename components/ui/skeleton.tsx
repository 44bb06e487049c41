/** A placeholder while a widget streams in; `aria-busy` tells screen readers it is loading. */
export function Skeleton({ rows = 3, height = '1.25rem', label = 'Loading' }: { rows?: number; height?: string; label?: string }) {
  return (
    <div role="status" aria-busy="true" aria-label={label} className="stack" data-testid="skeleton">
      {Array.from({ length: rows }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: placeholder rows have no identity but their place.
        <div key={i} className="skeleton" style={{ height, width: i === rows - 1 && rows > 1 ? '60%' : '100%' }} />
      ))}
    </div>
  );
}

export function CardSkeleton({ title, rows = 4 }: { title?: string; rows?: number }) {
  return (
    <section className="card">
      {title && <h2>{title}</h2>}
      <Skeleton rows={rows} />
    </section>
  );
}
