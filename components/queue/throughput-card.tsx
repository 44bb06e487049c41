'use client';

import { useId } from 'react';
import { describeRateLimit, type Throughput } from '@/dashboard/client/throughput-limits';
import { ThroughputForms } from './throughput-forms';
import type { ThroughputActions } from './types';

export interface ThroughputCardProps {
  queue: string;
  throughput: Throughput;
  canOperate: boolean;
  actions: ThroughputActions;
  onChanged(): void;
}

/**
 * The queue's global concurrency and rate limit beside the job table's own values, what
 * they mean, and (operators) the forms that change them. Everyone sees the values.
 */
export function ThroughputCard({ queue, throughput: t, canOperate, actions, onChanged }: ThroughputCardProps) {
  const titleId = useId();
  const rate = t.effectiveRateLimit;
  return (
    <section className="card stack" aria-labelledby={titleId} data-testid="queue-throughput">
      <h2 id={titleId}>Throughput limits</h2>
      <dl className="dl">
        <dt>Global concurrency</dt>
        <dd data-testid="throughput-concurrency" data-value={t.globalConcurrency ?? ''}>
          {t.globalConcurrency === null
            ? 'No global limit'
            : `At most ${t.globalConcurrency.toLocaleString('en')} ${t.globalConcurrency === 1 ? 'job' : 'jobs'} at once across all workers`}
          <span className="small muted">
            {' '}
            · each worker process runs up to {t.processConcurrency.toLocaleString('en')} at once (job table)
          </span>
        </dd>
        <dt>Rate limit</dt>
        <dd
          data-testid="throughput-rate-limit"
          data-max={t.globalRateLimit?.max ?? ''}
          data-duration-ms={t.globalRateLimit?.durationMs ?? ''}
        >
          {rate ? describeRateLimit(rate) : 'No rate limit'}
          <span className="small muted">
            {' '}
            · {t.globalRateLimit ? 'set here' : t.typeRateLimit ? 'the job table’s default' : 'none set here or in the job table'}
            {t.globalRateLimit && t.typeRateLimit && `, in the job table’s window (its default: ${describeRateLimit(t.typeRateLimit)})`}
          </span>
        </dd>
      </dl>
      <details data-testid="throughput-help">
        <summary>What these mean</summary>
        <ul className="small">
          <li>
            <strong>Global concurrency</strong> caps how many jobs of this queue run at the same time across every worker process. It sits
            on top of each process’s own concurrency from the job table ({t.processConcurrency} here): with 3 processes the queue could run{' '}
            {3 * t.processConcurrency} at once; a global limit of 2 holds all of them to 2.
          </li>
          <li>
            <strong>Rate limit</strong> allows at most N job starts per window across all workers; jobs over it wait, they are not failed.{' '}
            {t.typeRateLimit
              ? `This type declares its own limit in the job table (${describeRateLimit(t.typeRateLimit)}); BullMQ then takes the maximum set here and keeps the table’s window, so only the maximum can be changed.`
              : 'This type declares no rate limit of its own in the job table.'}
          </li>
          <li>
            Both are stored in the queue’s BullMQ meta hash in Redis: running workers obey a change at their next fetch, restarted ones read
            it again, and removing a limit returns the queue to the job table’s defaults. Every change is in the audit log.
          </li>
        </ul>
      </details>
      {canOperate && <ThroughputForms queue={queue} throughput={t} actions={actions} onChanged={onChanged} />}
    </section>
  );
}
