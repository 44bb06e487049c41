import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { Suspense } from 'react';
import { requireUser } from '@/dashboard/auth/require-user';
import { firstParam, type RouteProps } from '@/app/_lib/route-props';
import { DeadLetterDetailView } from '@/components/dead-letters/dead-letter-detail';
import { DeadLetterEntryActions } from '@/components/dead-letters/dead-letter-entry-actions';
import { LastReplayFailed } from '@/components/dead-letters/last-replay-failed';
import { LastReplayNote } from '@/components/dead-letters/last-replay-note';
import { PayloadEditor } from '@/components/dead-letters/payload-editor';
import { RefreshWhile } from '@/components/dead-letters/refresh-while';
import { StatusPill } from '@/components/ui/badge';
import { CardSkeleton } from '@/components/ui/skeleton';
import { roleAtLeast } from '@/dashboard/auth/roles';
import { getBullpen } from '@/dashboard/dashboard-process';
import { readDeadLetterDetail } from '@/dashboard/dead-letters/dead-letters-read';
import { discardDeadLetter, replayDeadLetter } from '../actions';

export const metadata: Metadata = { title: 'Dead letter' };

export default async function DeadLetterPage({ params, searchParams }: RouteProps<{ id: string }>) {
  const { id } = await params;
  // `?edit=1`: a one-click replay was refused for a payload that needs an edit; open the editor.
  const edit = firstParam(await searchParams, 'edit') === '1';
  const user = await requireUser('viewer', `/dead-letters/${encodeURIComponent(id)}`);
  return (
    <>
      <nav className="breadcrumbs" aria-label="Breadcrumbs">
        <Link href="/dead-letters">Dead letters</Link> › <span className="mono">{id}</span>
      </nav>
      <Suspense fallback={<CardSkeleton title="Dead letter" rows={8} />}>
        <Entry id={id} canOperate={roleAtLeast(user.role, 'operator')} canConfirm={roleAtLeast(user.role, 'admin')} edit={edit} />
      </Suspense>
    </>
  );
}

async function Entry({ id, canOperate, canConfirm, edit }: { id: string; canOperate: boolean; canConfirm: boolean; edit: boolean }) {
  const entry = await readDeadLetterDetail(getBullpen(), id);
  if (!entry) notFound();
  // Over the limit, only the payload's start was kept: nothing to replay (docs/dead-letters.md#payloads).
  const replayable = entry.knownType && !entry.payloadTooLarge && (entry.status === 'pending' || entry.status === 'replayed');
  // A type that destroys data is an admin's to replay (dashboard/jobs/job-start-rules.ts): no editor for anyone else.
  const mayReplay = replayable && (entry.confirmation === undefined || canConfirm);
  return (
    <>
      <div className="page-head">
        <h1>
          {entry.jobType} <span className="muted">dead letter</span>
        </h1>
        <span className="row" data-testid="dlq-detail-status" data-status={entry.status}>
          <StatusPill status={entry.status} />
          {entry.replays > 0 && <span className="small muted">replayed {entry.replays}×</span>}
        </span>
      </div>
      {entry.lastReplayFailed && <LastReplayFailed queue={entry.queue} failure={entry.lastReplayFailed} />}
      {/* A failed last replay is said above; otherwise what its job is doing, until it ends. */}
      {entry.lastReplay && entry.lastReplay.outcome !== 'failed' && entry.status !== 'discarded' && (
        <LastReplayNote queue={entry.queue} last={entry.lastReplay} />
      )}
      <RefreshWhile active={entry.status === 'replaying' || ['waiting', 'running', 'unknown'].includes(entry.lastReplay?.outcome ?? '')} />
      <DeadLetterDetailView
        entry={entry}
        actions={
          canOperate && (
            <section className="card stack" aria-labelledby="dlq-actions-h" data-testid="dlq-detail-actions">
              <h2 id="dlq-actions-h">Replay or discard</h2>
              <DeadLetterEntryActions
                id={entry.id}
                queue={entry.queue}
                replays={entry.replays}
                replayable={replayable}
                confirmation={entry.confirmation}
                canConfirm={canConfirm}
                actions={{ replay: replayDeadLetter, discard: discardDeadLetter }}
              />
              {!replayable && <p className="small muted">{notReplayableReason(entry.status, entry.knownType, !!entry.payloadTooLarge)}</p>}
              {mayReplay && entry.payloadText !== undefined && (
                <details id="edit-payload" open={edit || undefined}>
                  <summary data-testid="dlq-edit-payload">Edit the payload, then replay</summary>
                  {/* A new failure records a new payload: the editor starts again from it. */}
                  <PayloadEditor
                    key={entry.failureHistory.length}
                    id={entry.id}
                    queue={entry.queue}
                    jobType={entry.jobType}
                    replays={entry.replays}
                    original={entry.payloadText}
                    replay={replayDeadLetter}
                    confirmation={entry.confirmation}
                  />
                </details>
              )}
              {mayReplay && entry.payloadText === undefined && (
                <p className="small muted">The payload is too large to edit in the browser; it can be replayed as it is.</p>
              )}
            </section>
          )
        }
      />
    </>
  );
}

function notReplayableReason(status: string, knownType: boolean, tooLarge: boolean): string {
  if (!knownType) return 'This build does not know the job type, so it cannot be replayed.';
  if (tooLarge) return 'The payload was over the size limit and only its start was kept, so it cannot be replayed: dispatch a new job.';
  if (status === 'replaying') return 'A replay is being enqueued right now.';
  return 'Discarded dead letters are kept for the record and cannot be replayed.';
}
