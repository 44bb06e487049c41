'use client';

import { useId, useRef, useState } from 'react';
import type { BulkOperation } from '@/dashboard/client/read-models';
import { CLEANABLE_STATES, type CleanableState } from '@/dashboard/client/clean-states';
import type { StateCounts } from '@/dashboard/client/read-models';
import { Button } from '@/components/ui/button';
import { InlineResult } from '@/components/ui/inline-result';
import { useAction } from '@/components/ui/use-action';
import type { QueueActions } from './types';

/**
 * Admin-only: remove jobs of one state older than N minutes. The queue name must be
 * typed to confirm; BullMQ removes at most 10,000 per call and the server loops.
 */
export function CleanDialog({
  queue,
  counts,
  clean,
  onStarted,
}: {
  queue: string;
  counts: StateCounts;
  clean: QueueActions['clean'];
  onStarted(op: BulkOperation, title: string): void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [state, setState] = useState<CleanableState>('completed');
  const [minutes, setMinutes] = useState('60');
  const [typed, setTyped] = useState('');
  const action = useAction(clean);
  const ids = { state: useId(), age: useId(), confirm: useId(), title: useId() };
  return (
    <>
      <Button variant="danger" data-testid="clean-queue" onClick={() => ref.current?.showModal()}>
        Clean…
      </Button>
      <dialog ref={ref} aria-labelledby={ids.title} data-testid="clean-queue-dialog">
        <form
          className="stack"
          onSubmit={async (e) => {
            e.preventDefault();
            const r = await action.run({ queue, state, olderThanMinutes: Number(minutes) });
            if (r.ok) {
              ref.current?.close();
              setTyped('');
              onStarted(r.data, `Cleaning ${state} jobs of ${queue}`);
            }
          }}
        >
          <h2 id={ids.title}>Clean {queue}</h2>
          <p>Permanently removes jobs (and their data and logs). Dead-letter entries stay.</p>
          <div className="field">
            <label htmlFor={ids.state}>State</label>
            <select id={ids.state} value={state} onChange={(e) => setState(e.target.value as CleanableState)}>
              {CLEANABLE_STATES.map((s) => (
                <option key={s} value={s}>
                  {s} ({counts[s].toLocaleString('en')})
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={ids.age}>Older than (minutes; 0 = all)</label>
            <input id={ids.age} type="number" min={0} step={1} value={minutes} onChange={(e) => setMinutes(e.target.value)} required />
            {action.result && !action.result.ok && action.result.fieldErrors?.olderThanMinutes && (
              <span className="field-error">{action.result.fieldErrors.olderThanMinutes.join(' ')}</span>
            )}
          </div>
          <div className="field">
            <label htmlFor={ids.confirm}>
              Type <code>{queue}</code> to confirm
            </label>
            <input id={ids.confirm} value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />
          </div>
          {action.result && !action.result.ok && <InlineResult result={action.result} />}
          <div className="actions">
            <Button onClick={() => ref.current?.close()}>Cancel</Button>
            <Button type="submit" variant="danger" disabled={typed !== queue || action.pending} data-testid="clean-queue-confirm">
              Remove jobs
            </Button>
          </div>
        </form>
      </dialog>
    </>
  );
}
