'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { z } from 'zod';
import { PayloadCheckNote } from '@/components/dead-letters/payload-check-note';
import { usePayloadCheck } from '@/components/dead-letters/use-payload-check';
import { Button } from '@/components/ui/button';
import { AddJobFooter } from './add-job-footer';
import { DestructiveConfirmField, confirmationTyped } from '@/components/ui/destructive-confirm-field';
import { FieldErrors } from '@/components/ui/field-errors';
import { useAction } from '@/components/ui/use-action';
import { type AddJobDefaults, addJobRequestSchema, DELAY_UNIT_NAMES, type DelayUnit, maxDelayIn } from '@/dashboard/client/add-job-form';
import { queryKeys } from '@/dashboard/client/query-keys';
import { PRIORITY_NAMES, type PriorityName } from '@/dashboard/client/runtime-shared';
import type { AddJobAction } from './types';

export interface AddJobPanelProps {
  queue: string;
  defaults: AddJobDefaults;
  add: AddJobAction;
}

/** "Add a job" on the queue page (operators and up): a button that opens the form. */
export function AddJobPanel({ queue, defaults, add }: AddJobPanelProps) {
  const [open, setOpen] = useState(false);
  if (!defaults.addable) {
    return (
      <p className="small muted" data-testid="add-job-unavailable">
        This build has no handler for {queue}, so no job of it can be added here.
      </p>
    );
  }
  if (!open) {
    return (
      <div className="row" style={{ marginBottom: '1rem' }}>
        <Button onClick={() => setOpen(true)} data-testid="add-job-open">
          Add a job
        </Button>
      </div>
    );
  }
  return <AddJobForm queue={queue} defaults={defaults} add={add} onClose={() => setOpen(false)} />;
}

type Field = 'priority' | 'delay' | 'orgId' | 'workspaceId' | 'confirm';

/**
 * The payload as JSON, checked as the operator types exactly as edit-and-replay checks
 * it (JSON, then the type's schema on the server), with the job's priority, delay and
 * tenant beside it. The named fields are checked in the browser by the same rules the
 * server applies; the server checks everything again and dispatches through the
 * dispatcher, so a refusal adds nothing.
 */
function AddJobForm({ queue, defaults, add, onClose }: AddJobPanelProps & { onClose(): void }) {
  const id = useId();
  const qc = useQueryClient();
  const [payload, setPayload] = useState(defaults.payload);
  const [priority, setPriority] = useState<PriorityName>(defaults.priority);
  const [delay, setDelay] = useState('');
  const [delayUnit, setDelayUnit] = useState<DelayUnit>('seconds');
  const [orgId, setOrgId] = useState('');
  const [workspaceId, setWorkspaceId] = useState('');
  const [confirm, setConfirm] = useState('');
  const { check } = usePayloadCheck(queue, payload);
  const action = useAction(add);

  // A destructive type is an admin's, after typing the org it acts on; the server checks
  // both (dashboard/jobs/job-start-rules.ts), and names what it expected when they differ.
  const input = { queue, payload, priority, delay, delayUnit, orgId, workspaceId, ...(defaults.destructive ? { confirm } : {}) };
  const local = addJobRequestSchema.safeParse(input);
  const localErrors = local.success ? {} : (z.flattenError(local.error).fieldErrors as Partial<Record<Field, string[]>>);
  const server = action.result && !action.result.ok ? action.result.fieldErrors : undefined;
  const errorsOf = (f: Field) => localErrors[f] ?? server?.[f];
  const ready = check.ok && local.success && (!defaults.destructive || confirmationTyped(confirm));

  return (
    <form
      className="card stack"
      style={{ marginBottom: '1rem' }}
      aria-label={`Add a ${queue} job`}
      data-testid="add-job-form"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!ready || action.pending) return;
        const r = await action.run(input);
        if (r.ok) void qc.invalidateQueries({ queryKey: queryKeys.queueAll(queue) });
      }}
    >
      <h2 style={{ margin: 0 }}>Add a job</h2>
      <div className="field">
        <label htmlFor={`${id}-payload`}>Payload (JSON, checked against the {queue} schema)</label>
        <textarea
          id={`${id}-payload`}
          className="mono"
          rows={Math.min(16, Math.max(4, payload.split('\n').length + 1))}
          value={payload}
          onChange={(e) => setPayload(e.target.value)}
          spellCheck={false}
          aria-invalid={!check.ok || undefined}
          data-testid="add-job-payload"
        />
        <PayloadCheckNote check={check} type={queue} testId="add-job-check" />
        <FieldErrors errors={server?.payload} testId="add-job-payload-errors" />
      </div>
      {/* Top-aligned, so a field's error below it does not shift its neighbours. */}
      <div className="filters" style={{ alignItems: 'flex-start' }}>
        <div className="field">
          <label htmlFor={`${id}-priority`}>Priority</label>
          <select
            id={`${id}-priority`}
            value={priority}
            onChange={(e) => setPriority(e.target.value as PriorityName)}
            data-testid="add-job-priority"
          >
            {PRIORITY_NAMES.map((p) => (
              <option key={p} value={p}>
                {p}
                {p === defaults.priority ? ' (the type’s default)' : ''}
              </option>
            ))}
          </select>
          <FieldErrors errors={errorsOf('priority')} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-delay`}>Delay (empty: at once)</label>
          <div className="row">
            <input
              id={`${id}-delay`}
              type="number"
              inputMode="numeric"
              min={0}
              max={maxDelayIn(delayUnit)}
              step={1}
              size={6}
              value={delay}
              onChange={(e) => setDelay(e.target.value)}
              aria-invalid={errorsOf('delay') ? true : undefined}
              data-testid="add-job-delay"
            />
            <select
              aria-label="Delay unit"
              value={delayUnit}
              onChange={(e) => setDelayUnit(e.target.value as DelayUnit)}
              data-testid="add-job-delay-unit"
            >
              {DELAY_UNIT_NAMES.map((u) => (
                <option key={u} value={u}>
                  {u}
                </option>
              ))}
            </select>
          </div>
          <FieldErrors errors={errorsOf('delay')} testId="add-job-delay-errors" />
        </div>
        <div className="field">
          <label htmlFor={`${id}-org`}>Tenant orgId (optional)</label>
          <input
            id={`${id}-org`}
            className="mono"
            value={orgId}
            onChange={(e) => setOrgId(e.target.value)}
            autoComplete="off"
            spellCheck={false}
            aria-invalid={errorsOf('orgId') ? true : undefined}
            data-testid="add-job-org"
          />
          <FieldErrors errors={errorsOf('orgId')} testId="add-job-org-errors" />
        </div>
        <div className="field">
          <label htmlFor={`${id}-workspace`}>workspaceId (optional)</label>
          <input
            id={`${id}-workspace`}
            className="mono"
            value={workspaceId}
            onChange={(e) => setWorkspaceId(e.target.value)}
            autoComplete="off"
            spellCheck={false}
            aria-invalid={errorsOf('workspaceId') ? true : undefined}
            data-testid="add-job-workspace"
          />
          <FieldErrors errors={errorsOf('workspaceId')} />
        </div>
      </div>
      {defaults.destructive ? (
        <DestructiveConfirmField type={queue} value={confirm} onChange={setConfirm} errors={errorsOf('confirm')} testId="add-job-confirm" />
      ) : null}
      <AddJobFooter
        queue={queue}
        testId="add-job"
        linkTestId="added-job-link"
        ready={ready}
        pending={action.pending}
        result={action.result}
        onClose={onClose}
        addedNote={(d) => (d.delayMs > 0 ? `, delayed ${Math.round(d.delayMs / 1000).toLocaleString('en')} s` : '')}
      />
    </form>
  );
}
