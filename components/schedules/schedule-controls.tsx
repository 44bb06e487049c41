'use client';

import Link from 'next/link';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { InlineResult } from '@/components/ui/inline-result';
import { useAction } from '@/components/ui/use-action';
import type { ActionResult } from '@/dashboard/client/action-result';
import { jobPageHref } from '@/dashboard/client/schedules-view';
import type { ScheduleSummary } from '@/dashboard/client/runtime-shared';
import type { ScheduleActions } from './schedule-actions';

type Last = 'pause' | 'resume' | 'reset' | 'trigger';

const SUCCESS: Record<Exclude<Last, 'trigger'>, string> = {
  pause: 'Paused: nothing fires until it is resumed.',
  resume: 'Resumed: it fires again at its next time.',
  reset: 'Reset: the code’s pattern, zone and data apply again.',
};

/** Edit / pause / resume / trigger now / reset to default, with the outcome in words. */
export function ScheduleControls(props: {
  schedule: ScheduleSummary;
  actions: ScheduleActions;
  editing: boolean;
  onEdit(): void;
  onChanged(): void;
}) {
  const { schedule: s, actions, editing, onEdit, onChanged } = props;
  const pause = useAction(actions.pause);
  const resume = useAction(actions.resume);
  const reset = useAction(actions.reset);
  const trigger = useAction(actions.trigger);
  const [last, setLast] = useState<Last | null>(null);
  const pending = pause.pending || resume.pending || reset.pending || trigger.pending;
  const canRun = s.active;

  async function run(which: Last, call: (input: { name: string }) => Promise<ActionResult<unknown>>) {
    setLast(which);
    const r = await call({ name: s.name });
    if (r.ok) onChanged();
  }

  return (
    <div className="stack">
      <div className="row" role="group" aria-label={`Actions for ${s.name}`}>
        <Button variant={editing ? 'default' : 'primary'} size="sm" onClick={onEdit} aria-expanded={editing} data-testid="schedule-edit">
          {editing ? 'Close editor' : 'Edit'}
        </Button>
        {canRun &&
          (s.paused ? (
            <Button size="sm" disabled={pending} onClick={() => run('resume', resume.run)} data-testid="schedule-resume">
              Resume
            </Button>
          ) : (
            <Button size="sm" disabled={pending} onClick={() => run('pause', pause.run)} data-testid="schedule-pause">
              Pause
            </Button>
          ))}
        {canRun && (
          <Button
            size="sm"
            disabled={pending}
            onClick={() => run('trigger', trigger.run)}
            data-testid="schedule-trigger"
            title="Enqueue one run now with the schedule’s data (also while paused)"
          >
            Trigger now
          </Button>
        )}
        {s.edited && (
          <ConfirmDialog
            size="sm"
            variant="default"
            testId="schedule-reset"
            triggerLabel="Reset to default"
            title={`Reset ${s.name} to its default?`}
            description={
              <p>
                The operator’s override is dropped: <code>{s.defaults.pattern}</code> in {s.defaults.tz} with data{' '}
                <code>{JSON.stringify(s.defaults.data)}</code> applies again, unpaused.
              </p>
            }
            confirmLabel="Reset"
            disabled={pending}
            onConfirm={() => run('reset', reset.run)}
          />
        )}
        {pending && (
          <span className="small muted" role="status">
            Working…
          </span>
        )}
      </div>
      {last === 'trigger' && trigger.result?.ok ? (
        <p className="result ok" role="status" data-testid="action-result" data-ok="true">
          Enqueued{' '}
          <Link
            href={jobPageHref(trigger.result.data.jobType, trigger.result.data.jobId)}
            className="mono"
            data-testid="schedule-triggered-job"
          >
            {trigger.result.data.jobId}
          </Link>
          .
        </p>
      ) : last === 'trigger' ? (
        <InlineResult result={trigger.result} />
      ) : last ? (
        <InlineResult result={{ pause, resume, reset }[last].result} success={SUCCESS[last]} />
      ) : null}
    </div>
  );
}
