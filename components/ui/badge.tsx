import type { ReactNode } from 'react';

export type Tone = 'neutral' | 'ok' | 'warn' | 'danger' | 'info' | 'violet';

export function Badge({
  tone = 'neutral',
  children,
  testId,
  title,
}: {
  tone?: Tone;
  children: ReactNode;
  testId?: string;
  title?: string;
}) {
  return (
    <span className={`badge tone-${tone}`} data-testid={testId} title={title}>
      {children}
    </span>
  );
}

const STATUS_TONE: Record<string, Tone> = {
  waiting: 'info',
  'waiting-children': 'info',
  active: 'violet',
  delayed: 'warn',
  prioritized: 'info',
  completed: 'ok',
  failed: 'danger',
  paused: 'warn',
  unknown: 'neutral',
  healthy: 'ok',
  degraded: 'warn',
  unhealthy: 'danger',
  pending: 'warn',
  replaying: 'info',
  replayed: 'ok',
  retried: 'ok',
  discarded: 'neutral',
  running: 'ok',
  disabled: 'danger',
};

/**
 * A job/queue/health/DLQ status as a coloured pill with the word written out (colour
 * is never the only signal). `data-testid="status-pill"` and `data-status` for tests.
 */
export function StatusPill({ status, testId = 'status-pill' }: { status: string; testId?: string }) {
  return (
    <span className={`badge tone-${STATUS_TONE[status] ?? 'neutral'}`} data-testid={testId} data-status={status}>
      {status}
    </span>
  );
}
