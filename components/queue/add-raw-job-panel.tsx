'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { z } from 'zod';
import { Button } from '@/components/ui/button';
import { AddJobFooter } from './add-job-footer';
import { FieldErrors } from '@/components/ui/field-errors';
import { useAction } from '@/components/ui/use-action';
import { addRawJobSchema, MAX_BULLMQ_PRIORITY } from '@/dashboard/client/add-raw-job';
import { parseJsonText } from '@/dashboard/client/dead-letters-payload';
import { queryKeys } from '@/dashboard/client/query-keys';
import type { AddRawJobAction } from './types';

type Field = 'name' | 'data' | 'delaySeconds' | 'priority' | 'attempts';

/**
 * "Add a job" on a foreign queue's page (operators and up): its job name and data as
 * raw JSON, stored as they are (no schema here: the queue is another service's), with
 * BullMQ's delay, priority and attempts. Checked as the operator types; the server
 * checks again and adds nothing when it refuses.
 */
export function AddRawJobPanel({ queue, add }: { queue: string; add: AddRawJobAction }) {
  const [open, setOpen] = useState(false);
  if (!open) {
    return (
      <div className="row" style={{ marginBottom: '1rem' }}>
        <Button onClick={() => setOpen(true)} data-testid="add-raw-job-open">
          Add a job (raw JSON)
        </Button>
      </div>
    );
  }
  return <AddRawJobForm queue={queue} add={add} onClose={() => setOpen(false)} />;
}

function AddRawJobForm({ queue, add, onClose }: { queue: string; add: AddRawJobAction; onClose(): void }) {
  const id = useId();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [data, setData] = useState('{}');
  const [delaySeconds, setDelay] = useState('');
  const [priority, setPriority] = useState('');
  const [attempts, setAttempts] = useState('');
  const action = useAction(add);
  const input = { queue, name, data, delaySeconds, priority, attempts };
  const local = addRawJobSchema.safeParse(input);
  const json = parseJsonText(data);
  const localErrors = local.success ? {} : (z.flattenError(local.error).fieldErrors as Partial<Record<Field, string[]>>);
  const server = action.result && !action.result.ok ? action.result.fieldErrors : undefined;
  const errorsOf = (f: Field) => localErrors[f] ?? server?.[f];
  const dataErrors = json.ok ? errorsOf('data') : [`${json.message}`];
  const ready = local.success && json.ok;
  const field = (f: Field, label: string, value: string, set: (v: string) => void, extra: Record<string, unknown> = {}) => (
    <div className="field">
      <label htmlFor={`${id}-${f}`}>{label}</label>
      <input
        id={`${id}-${f}`}
        className="mono"
        value={value}
        onChange={(e) => set(e.target.value)}
        autoComplete="off"
        spellCheck={false}
        aria-invalid={errorsOf(f) ? true : undefined}
        data-testid={`add-raw-job-${f}`}
        {...extra}
      />
      <FieldErrors errors={errorsOf(f)} />
    </div>
  );
  return (
    <form
      className="card stack"
      style={{ marginBottom: '1rem' }}
      aria-label="Add a job to this queue"
      data-testid="add-raw-job-form"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!ready || action.pending) return;
        const r = await action.run(input);
        if (r.ok) void qc.invalidateQueries({ queryKey: queryKeys.queueAll(queue) });
      }}
    >
      <h2 style={{ margin: 0 }}>Add a job</h2>
      <p className="small muted" style={{ margin: 0 }}>
        This queue is another service&apos;s: the data is stored as it is, with no schema check. Its workers decide what the name and data
        mean.
      </p>
      <div className="filters" style={{ alignItems: 'flex-start' }}>
        {field('name', 'Job name', name, setName)}
        {field('delaySeconds', 'Delay, seconds (empty: at once)', delaySeconds, setDelay, { inputMode: 'numeric', size: 8 })}
        {field('priority', `Priority (1 most urgent … ${MAX_BULLMQ_PRIORITY}; empty: none)`, priority, setPriority, {
          inputMode: 'numeric',
          size: 8,
        })}
        {field('attempts', 'Attempts (empty: BullMQ’s 1)', attempts, setAttempts, { inputMode: 'numeric', size: 4 })}
      </div>
      <div className="field">
        <label htmlFor={`${id}-data`}>Data (JSON)</label>
        <textarea
          id={`${id}-data`}
          className="mono"
          rows={Math.min(16, Math.max(4, data.split('\n').length + 1))}
          value={data}
          onChange={(e) => setData(e.target.value)}
          spellCheck={false}
          aria-invalid={dataErrors ? true : undefined}
          data-testid="add-raw-job-data"
        />
        <FieldErrors errors={dataErrors} testId="add-raw-job-data-errors" />
      </div>
      <AddJobFooter
        queue={queue}
        testId="add-raw-job"
        linkTestId="added-raw-job-link"
        ready={ready}
        pending={action.pending}
        result={action.result}
        onClose={onClose}
      />
    </form>
  );
}
