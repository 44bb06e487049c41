import { StatusPill } from '@/components/ui/badge';
import { formatDurationMs, type CheckView } from '@/dashboard/client/health-view';

/** One check: its status, latency, a sentence and the facts behind it. */
export function HealthCheckCard({ check }: { check: CheckView }) {
  return (
    <section
      className="card"
      data-testid={`health-check-${check.name}`}
      data-status={check.status}
      aria-labelledby={`health-${check.name}-title`}
    >
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <h3 id={`health-${check.name}-title`} style={{ margin: 0 }}>
          {check.title}
        </h3>
        <StatusPill status={check.status} />
      </div>
      <p className="small muted" style={{ marginTop: '0.25rem' }}>
        {check.what}
      </p>
      <p data-testid={`health-check-${check.name}-summary`}>{check.summary}</p>
      <dl className="dl small">
        <dt>Check took</dt>
        <dd data-testid={`health-check-${check.name}-latency`}>{formatDurationMs(check.latencyMs)}</dd>
        {check.facts.map((f) => (
          <Fact key={f.label} label={f.label} value={f.value} />
        ))}
      </dl>
    </section>
  );
}

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </>
  );
}
