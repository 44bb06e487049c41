'use client';

import Link from 'next/link';
import { useState } from 'react';
import { Badge, StatusPill } from '@/components/ui/badge';
import { RelativeTime } from '@/components/ui/relative-time';
import { diffFromDefault, FIELD_LABEL, jobPageHref, scheduleState } from '@/dashboard/client/schedules-view';
import type { ScheduleSummary } from '@/dashboard/client/runtime-shared';
import { NextRuns } from './next-runs';
import type { ScheduleActions } from './schedule-actions';
import { ScheduleControls } from './schedule-controls';
import { ScheduleEditForm } from './schedule-edit-form';

export interface ScheduleCardProps {
  schedule: ScheduleSummary;
  now: number | null;
  previewUrl: string;
  actions?: ScheduleActions;
  onChanged(): void;
}

/**
 * One schedule: its cron in plain words, zone, next five fire times, last run and
 * outcome, and where an operator's edit differs from the code's default (the default
 * shown beside it). Operators get the controls and the inline edit form.
 */
export function ScheduleCard({ schedule: s, now, previewUrl, actions, onChanged }: ScheduleCardProps) {
  const [editing, setEditing] = useState(false);
  const state = scheduleState(s);
  const diffs = diffFromDefault(s);
  const titleId = `schedule-${s.name}-title`;
  return (
    <section className="card" data-testid="schedule-row" data-schedule={s.name} data-state={state} aria-labelledby={titleId}>
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <div className="row">
          <h2 id={titleId} style={{ margin: 0 }}>
            {s.name}
          </h2>
          <StatusPill status={state} />
          {s.edited ? (
            <Badge tone="violet" testId="schedule-edited" title={s.editedAt ? `Edited ${new Date(s.editedAt).toISOString()}` : undefined}>
              edited{s.editedBy ? ` by ${s.editedBy}` : ''}
            </Badge>
          ) : (
            <Badge testId="schedule-default">default</Badge>
          )}
        </div>
        <span className="small muted">
          runs{' '}
          <Link href={`/queues/${encodeURIComponent(s.jobType)}`} className="tap-target">
            {s.jobType}
          </Link>
        </span>
      </div>
      <p className="small muted">{s.description}</p>
      {(s.pattern !== s.defaults.pattern || s.tz !== s.defaults.tz) && (
        // The description is the code's and names the default timing; say what runs now.
        <p className="small" data-testid="schedule-timing-note">
          Edited timing: it now runs <strong>{s.patternText.charAt(0).toLowerCase() + s.patternText.slice(1)}</strong> ({s.tz}), not as the
          description says ({s.defaults.patternText.charAt(0).toLowerCase() + s.defaults.patternText.slice(1)}, {s.defaults.tz}).
        </p>
      )}
      {!s.active && s.inactiveReason && (
        <p className="result info small" data-testid="schedule-inactive-reason">
          Inactive: {s.inactiveReason}.
        </p>
      )}
      <div className="grid" style={{ marginTop: '0.75rem' }}>
        <dl className="dl">
          <dt>Cron</dt>
          <dd>
            <code data-testid="schedule-pattern">{s.pattern}</code>
          </dd>
          <dt>In words</dt>
          <dd data-testid="schedule-description">{s.patternText}</dd>
          <dt>Time zone</dt>
          <dd data-testid="schedule-tz">{s.tz}</dd>
          {diffs.map((d) => (
            <DefaultRow key={d.field} label={`Default ${FIELD_LABEL[d.field].toLowerCase()}`} value={d.default} />
          ))}
          <dt>Last run</dt>
          <dd data-testid="schedule-last-run" data-outcome={s.lastRun?.outcome ?? 'none'}>
            <LastRun schedule={s} />
          </dd>
        </dl>
        <div>
          <h3 style={{ marginTop: 0 }} className="small muted">
            Next fire times ({s.tz})
          </h3>
          <NextRuns
            runs={s.nextRuns}
            tz={s.tz}
            now={now}
            emptyText={
              state === 'paused' ? 'Paused: nothing will fire until it is resumed.' : 'Nothing will fire: the schedule is inactive.'
            }
          />
        </div>
      </div>
      {actions && (
        <div className="stack" style={{ marginTop: '0.75rem' }}>
          <ScheduleControls schedule={s} actions={actions} editing={editing} onEdit={() => setEditing((e) => !e)} onChanged={onChanged} />
          {editing && (
            <ScheduleEditForm
              schedule={s}
              previewUrl={previewUrl}
              now={now}
              save={actions.edit}
              onDone={(saved) => {
                if (saved) onChanged();
                setEditing(false);
              }}
            />
          )}
        </div>
      )}
    </section>
  );
}

function DefaultRow({ label, value }: { label: string; value: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>
        <code className="muted">{value}</code>
      </dd>
    </>
  );
}

function LastRun({ schedule: s }: { schedule: ScheduleSummary }) {
  const run = s.lastRun;
  if (!run) return <span className="muted">never (since Bullpen started recording)</span>;
  return (
    <span className="stack">
      <span className="row">
        <StatusPill status={run.outcome} />
        <RelativeTime ms={run.at} />
        <span className="small muted">{run.trigger === 'manual' ? 'triggered by hand' : 'on schedule'}</span>
        <Link href={jobPageHref(s.jobType, run.jobId)} className="small mono" data-testid="schedule-last-run-job">
          {run.jobId}
        </Link>
      </span>
      {run.reason && (
        <span className="small" style={{ color: 'var(--danger)' }} data-testid="schedule-last-run-reason">
          {run.reason}
        </span>
      )}
    </span>
  );
}
