'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useRef, useState } from 'react';
import type { JobSummary } from '@/dashboard/client/read-models';
import type { JobStateName } from '@/dashboard/client/job-states';
import { Badge, StatusPill } from '@/components/ui/badge';
import { RESULTS_ID } from '@/components/layout/results-id';
import { shortcutRowProps, useRowShortcuts } from '@/components/keyboard/row-shortcuts';
import { useHeldRows } from '@/components/live/use-held-rows';
import { Button } from '@/components/ui/button';
import { ConfirmPrompt, type ConfirmRequest } from '@/components/ui/confirm-prompt';
import { InlineResult } from '@/components/ui/inline-result';
import { ProgressBar } from '@/components/ui/progress-bar';
import { RelativeTime } from '@/components/ui/relative-time';
import { Table } from '@/components/ui/table';
import { HeldList } from '@/components/live/held-list';
import { useAction } from '@/components/ui/use-action';
import type { QueueActions } from './types';
import { jobPageHref } from '@/dashboard/client/schedules-view';
import { RetryMarkBadge } from '@/components/job/retry-mark-badge';

export interface JobTableProps {
  queue: string;
  state: JobStateName;
  jobs: JobSummary[];
  canOperate: boolean;
  /** A name or tenant filter is on (changes the empty-page message). */
  filtered?: boolean;
  actions: QueueActions;
  onChanged(): void;
}

const describeNewJobs = (n: number) => (n === 1 ? '1 new job arrived' : `${n} new jobs arrived`);

const jobHref = (queue: string, id: string) => `/queues/${encodeURIComponent(queue)}/jobs/${encodeURIComponent(id)}`;

/**
 * The jobs of one page. Failed tab, operators: select rows and retry them, or retry one.
 * The rows hold still under the pointer, the focus or a selection, as the dead letters do
 * (components/live/use-held-rows.ts): a refresh updates them in place, and new jobs wait
 * behind "Show them".
 */
export function JobTable({ queue, state, jobs: fresh, canOperate, filtered, actions, onChanged }: JobTableProps) {
  const selectable = canOperate && state === 'failed';
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const held = useHeldRows(fresh, { selecting: selected.size > 0, describeNew: describeNewJobs });
  const jobs = held.rows;
  const retrySelected = useAction(actions.retrySelected);
  const retryOne = useAction(actions.retryJob);
  const retryResult = useRef<HTMLDivElement>(null);
  const router = useRouter();
  const [asking, setAsking] = useState<ConfirmRequest | null>(null);
  const retry = async (id: string) => {
    const r = await retryOne.run({ queue, id });
    retryResult.current?.focus();
    if (r.ok) onChanged();
  };
  // j/k walk the rows, Enter opens one; r retries the focused failed job, after asking (the button does not).
  useRowShortcuts({
    open: (id) => router.push(jobHref(queue, id)),
    act: selectable
      ? (id) =>
          // A job whose Retry would be refused says so on its row; r does nothing there.
          !jobs.find((j) => j.id === id)?.retryRefused &&
          setAsking({
            title: `Retry job ${id}?`,
            description: <p>It leaves the failed list and waits to run again, with its attempts counted afresh.</p>,
            confirmLabel: 'Retry',
            onConfirm: () => retry(id),
          })
      : undefined,
  });
  // A row the list no longer holds (retried, removed) stays in place while held, without its controls.
  const live = jobs.filter((j) => !held.departed.has(j.id));
  const visible = live.filter((j) => selected.has(j.id)).map((j) => j.id);
  const allChecked = live.length > 0 && visible.length === live.length;
  const toggle = (id: string) =>
    setSelected((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  // One tree whether or not rows are left: retrying the last failed job empties the list,
  // and its outcome (which holds the focus) must stay where it is.
  return (
    <div className="stack">
      {selectable && (jobs.length > 0 || retrySelected.result) && (
        <div className="row">
          <Button
            variant="primary"
            size="sm"
            disabled={visible.length === 0 || retrySelected.pending}
            data-testid="retry-selected"
            onClick={async () => {
              const r = await retrySelected.run({ queue, ids: visible });
              if (r.ok) {
                setSelected(new Set());
                onChanged();
              }
            }}
          >
            Retry selected ({visible.length})
          </Button>
          {retrySelected.result && (
            <InlineResult
              result={retrySelected.result}
              success={
                retrySelected.result.ok
                  ? `Retried ${retrySelected.result.data.succeeded}${
                      retrySelected.result.data.skipped > 0
                        ? `; ${retrySelected.result.data.message ?? `${retrySelected.result.data.skipped} skipped`}`
                        : ''
                    }.`
                  : undefined
              }
            />
          )}
        </div>
      )}
      {/* Focus lands here after a row's retry: the row itself leaves the failed list. */}
      <div ref={retryResult} tabIndex={-1} aria-live="polite" data-testid="job-retry-outcome">
        {retryOne.result && (
          <InlineResult
            result={retryOne.result}
            success={
              retryOne.result.ok ? (
                <>
                  Retried{' '}
                  <Link href={jobPageHref(queue, retryOne.result.data.jobId)} className="mono" data-testid="retried-job-link">
                    {retryOne.result.data.jobId}
                  </Link>
                  : it waits to run again{retryOne.result.data.deadLetterId ? ', and its dead letter is marked retried' : ''}.
                </>
              ) : undefined
            }
          />
        )}
      </div>
      <HeldList held={held} describeNew={describeNewJobs} testIdPrefix="jobs">
        {jobs.length === 0 ? (
          <p className="card muted" data-testid="jobs-empty">
            {filtered ? `No matching ${state} jobs on this page.` : `No ${state} jobs here.`}
          </p>
        ) : (
          <Table caption={`${titleCase(state)} jobs`} id={RESULTS_ID} tabIndex={-1} data-testid="job-table">
            <thead>
              <tr>
                {selectable && (
                  <th scope="col">
                    <input
                      type="checkbox"
                      aria-label="Select all jobs on this page"
                      checked={allChecked}
                      onChange={() => setSelected(allChecked ? new Set() : new Set(live.map((j) => j.id)))}
                      data-testid="select-all-jobs"
                    />
                  </th>
                )}
                <th scope="col">Id</th>
                <th scope="col" className="hide-sm">
                  Name
                </th>
                <th scope="col">Tenant</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Attempts
                </th>
                <th scope="col">{state === 'completed' || state === 'failed' ? 'Finished' : state === 'delayed' ? 'Runs' : 'Created'}</th>
                {state === 'failed' && <th scope="col">Reason</th>}
                {state === 'completed' && <th scope="col">Result</th>}
                {selectable && (
                  <th scope="col">
                    <span className="sr-only-sm">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {jobs.map((j) => (
                // The whole row opens the job: its id link is stretched over it (.row-link in globals.css).
                <tr
                  key={j.id}
                  className={held.departed.has(j.id) ? 'row-linked row-departed' : 'row-linked'}
                  data-testid="job-row"
                  data-job-id={j.id}
                  data-departed={held.departed.has(j.id) || undefined}
                  {...shortcutRowProps(j.id)}
                >
                  {selectable && (
                    <td>
                      {!held.departed.has(j.id) && (
                        <input
                          type="checkbox"
                          aria-label={`Select job ${j.id}`}
                          checked={selected.has(j.id)}
                          onChange={() => toggle(j.id)}
                          data-testid={`job-select-${j.id}`}
                        />
                      )}
                    </td>
                  )}
                  <td className="mono">
                    <Link
                      href={jobHref(queue, j.id)}
                      className="row-link"
                      aria-label={`Job ${j.id}, ${j.name}`}
                      data-testid={`job-link-${j.id}`}
                    >
                      {j.id}
                    </Link>
                  </td>
                  <td className="hide-sm truncate">{j.name}</td>
                  <td className="mono">
                    {j.tenant ? (
                      `${j.tenant.orgId}${j.tenant.workspaceId ? `/${j.tenant.workspaceId}` : ''}`
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td>
                    {/* A finished job shows how it ended, not the progress it last reported. */}
                    {state === 'active' || (j.progress.percent > 0 && state !== 'failed' && state !== 'completed') ? (
                      <ProgressBar value={j.progress.percent} label={j.progress.phase} testId="job-row-progress" />
                    ) : (
                      <span className="row" style={{ flexWrap: 'nowrap' }}>
                        <StatusPill status={j.state ?? state} />
                        {j.retryRefused && <RetryMarkBadge mark={j.retryRefused} queue={queue} testId="job-row-retry-mark" />}
                        {held.departed.has(j.id) && <span className="small muted">no longer in this list</span>}
                        {j.outcome?.partial && (
                          <Badge tone="warn" title={j.outcome.text} testId="job-row-partial">
                            partial
                          </Badge>
                        )}
                      </span>
                    )}
                  </td>
                  <td className="num">
                    {j.attemptsMade}/{j.maxAttempts}
                  </td>
                  <td>
                    <RelativeTime
                      ms={state === 'completed' || state === 'failed' ? j.finishedAt : state === 'delayed' ? j.runAt : j.createdAt}
                    />
                  </td>
                  {state === 'failed' && (
                    <td className="truncate" title={j.failedReason}>
                      {j.failedReason}
                    </td>
                  )}
                  {state === 'completed' && (
                    <td className="truncate" title={j.outcome?.text} data-testid="job-row-outcome">
                      {j.outcome?.text ?? <span className="muted">—</span>}
                    </td>
                  )}
                  {selectable && (
                    <td>
                      {held.departed.has(j.id) ? null : j.retryRefused ? (
                        <span className="muted small">not retried</span>
                      ) : (
                        <Button size="sm" disabled={retryOne.pending} data-testid={`retry-job-${j.id}`} onClick={() => retry(j.id)}>
                          Retry
                        </Button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </HeldList>
      {selectable && <ConfirmPrompt request={asking} onClosed={() => setAsking(null)} testId="job-retry-shortcut" />}
    </div>
  );
}

function titleCase(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
