'use client';

import { useId, useState } from 'react';
import type { ActionResult } from '@/dashboard/client/action-result';
import {
  describeRateLimit,
  describeWindow,
  MAX_GLOBAL_CONCURRENCY,
  MAX_RATE_LIMIT_JOBS,
  type Throughput,
} from '@/dashboard/client/throughput-limits';
import { Button } from '@/components/ui/button';
import { InlineResult } from '@/components/ui/inline-result';
import { useAction } from '@/components/ui/use-action';
import type { ThroughputActions } from './types';

const UNITS = { ms: 1, s: 1_000, min: 60_000 } as const;
type Unit = keyof typeof UNITS;

/** The window as the form shows it: the largest unit it is a whole number of. */
function windowFields(ms: number | undefined): { value: string; unit: Unit } {
  if (ms === undefined) return { value: '1', unit: 's' };
  if (ms % 60_000 === 0) return { value: String(ms / 60_000), unit: 'min' };
  if (ms % 1_000 === 0) return { value: String(ms / 1_000), unit: 's' };
  return { value: String(ms), unit: 'ms' };
}

/** The window in ms for the action; what is not a number goes as typed, and the server says why it is refused. */
function windowMs(value: string, unit: Unit): number | string {
  const n = Number(value);
  return value.trim() !== '' && Number.isFinite(n) ? Math.round(n * UNITS[unit]) : value;
}

function FieldError({ result, field }: { result: ActionResult<unknown> | null; field: string }) {
  const errors = result && !result.ok ? result.fieldErrors?.[field] : undefined;
  return errors ? <span className="field-error">{errors.join(' ')}</span> : null;
}

/** Operators: set or remove the queue's global concurrency and rate limit. The server validates and audits. */
export function ThroughputForms({
  queue,
  throughput: t,
  actions,
  onChanged,
}: {
  queue: string;
  throughput: Throughput;
  actions: ThroughputActions;
  onChanged(): void;
}) {
  const ids = { concurrency: useId(), max: useId(), window: useId(), unit: useId() };
  const [concurrency, setConcurrency] = useState(String(t.globalConcurrency ?? ''));
  const [max, setMax] = useState(String(t.globalRateLimit?.max ?? ''));
  const fixedWindow = t.typeRateLimit?.durationMs;
  const initialWindow = windowFields(fixedWindow ?? t.globalRateLimit?.durationMs);
  const [windowValue, setWindowValue] = useState(initialWindow.value);
  const [unit, setUnit] = useState<Unit>(initialWindow.unit);
  const setC = useAction(actions.setConcurrency);
  const removeC = useAction(actions.removeConcurrency);
  const setR = useAction(actions.setRateLimit);
  const removeR = useAction(actions.removeRateLimit);
  const [last, setLast] = useState<'set-c' | 'remove-c' | 'set-r' | 'remove-r' | null>(null);
  const pending = setC.pending || removeC.pending || setR.pending || removeR.pending;

  const done = (r: ActionResult<unknown>) => {
    if (r.ok) onChanged();
  };
  const shown = { 'set-c': setC, 'remove-c': removeC, 'set-r': setR, 'remove-r': removeR }[last ?? 'set-c'];

  return (
    <div className="stack">
      <form
        className="filters"
        // The server's refusal names the rule; the browser's own bubble would hide it.
        noValidate
        aria-label="Global concurrency"
        data-testid="throughput-concurrency-form"
        onSubmit={async (e) => {
          e.preventDefault();
          setLast('set-c');
          done(await setC.run({ queue, concurrency }));
        }}
      >
        <div className="field">
          <label htmlFor={ids.concurrency}>Jobs at once, all workers</label>
          <input
            id={ids.concurrency}
            type="number"
            inputMode="numeric"
            min={1}
            max={MAX_GLOBAL_CONCURRENCY}
            step={1}
            value={concurrency}
            onChange={(e) => setConcurrency(e.target.value)}
            data-testid="throughput-concurrency-input"
          />
          <FieldError result={setC.result} field="concurrency" />
        </div>
        <Button type="submit" variant="primary" disabled={pending} data-testid="throughput-concurrency-set">
          Set concurrency
        </Button>
        <Button
          disabled={pending || t.globalConcurrency === null}
          data-testid="throughput-concurrency-remove"
          onClick={async () => {
            setLast('remove-c');
            const r = await removeC.run({ queue });
            if (r.ok) setConcurrency('');
            done(r);
          }}
        >
          Remove concurrency limit
        </Button>
      </form>
      <form
        className="filters"
        noValidate
        aria-label="Rate limit"
        data-testid="throughput-rate-form"
        onSubmit={async (e) => {
          e.preventDefault();
          setLast('set-r');
          const durationMs = fixedWindow ?? windowMs(windowValue, unit);
          done(await setR.run({ queue, max, durationMs }));
        }}
      >
        <div className="field">
          <label htmlFor={ids.max}>Job starts, all workers</label>
          <input
            id={ids.max}
            type="number"
            inputMode="numeric"
            min={1}
            max={MAX_RATE_LIMIT_JOBS}
            step={1}
            value={max}
            onChange={(e) => setMax(e.target.value)}
            data-testid="throughput-rate-max"
          />
          <FieldError result={setR.result} field="max" />
        </div>
        {fixedWindow !== undefined ? (
          <div className="field">
            <span>Per</span>
            <span data-testid="throughput-rate-window-fixed">{describeWindow(fixedWindow)} (the job table’s window)</span>
            <FieldError result={setR.result} field="durationMs" />
          </div>
        ) : (
          <>
            <div className="field">
              <label htmlFor={ids.window}>Per</label>
              <input
                id={ids.window}
                type="number"
                inputMode="decimal"
                min={0}
                step="any"
                value={windowValue}
                onChange={(e) => setWindowValue(e.target.value)}
                data-testid="throughput-rate-window"
              />
              <FieldError result={setR.result} field="durationMs" />
            </div>
            <div className="field">
              <label htmlFor={ids.unit}>Unit</label>
              <select id={ids.unit} value={unit} onChange={(e) => setUnit(e.target.value as Unit)} data-testid="throughput-rate-unit">
                <option value="ms">milliseconds</option>
                <option value="s">seconds</option>
                <option value="min">minutes</option>
              </select>
            </div>
          </>
        )}
        <Button type="submit" variant="primary" disabled={pending} data-testid="throughput-rate-set">
          Set rate limit
        </Button>
        <Button
          disabled={pending || t.globalRateLimit === null}
          data-testid="throughput-rate-remove"
          onClick={async () => {
            setLast('remove-r');
            const r = await removeR.run({ queue });
            if (r.ok) setMax('');
            done(r);
          }}
        >
          Remove rate limit
        </Button>
      </form>
      {last && (
        <InlineResult
          result={shown.result}
          testId="throughput-result"
          success={
            last === 'set-c'
              ? `Global concurrency set to ${setC.result?.ok ? setC.result.data.after : concurrency}.`
              : last === 'remove-c'
                ? 'Global concurrency removed; each worker runs up to its own concurrency.'
                : last === 'set-r' && setR.result?.ok && setR.result.data.after
                  ? `Rate limit set to ${describeRateLimit(setR.result.data.after)}.`
                  : t.typeRateLimit
                    ? `Rate limit removed; the job table’s ${describeRateLimit(t.typeRateLimit)} applies.`
                    : 'Rate limit removed.'
          }
        />
      )}
    </div>
  );
}
