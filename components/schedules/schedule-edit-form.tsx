'use client';

import { useId, useMemo, useState } from 'react';
import { Button } from '@/components/ui/button';
import { InlineResult } from '@/components/ui/inline-result';
import { useAction } from '@/components/ui/use-action';
import type { ActionResult } from '@/dashboard/client/action-result';
import type { ScheduleFormInput } from '@/dashboard/client/read-models';
import { sameJson } from '@/dashboard/client/schedules-view';
import type { ScheduleSummary } from '@/dashboard/client/runtime-shared';
import { NextRuns } from './next-runs';
import { PayloadCheckNote } from '@/components/dead-letters/payload-check-note';
import { usePayloadCheck } from '@/components/dead-letters/use-payload-check';
import { useCronPreview } from './use-cron-preview';

export interface ScheduleEditFormProps {
  schedule: ScheduleSummary;
  previewUrl: string;
  now: number | null;
  save(input: ScheduleFormInput): Promise<ActionResult<ScheduleSummary>>;
  /** Called after a save (true) or on cancel (false). */
  onDone(saved: boolean): void;
}

/**
 * Edits pattern, zone and data with a live check: the server previews the pattern as
 * the operator types (next five fire times, in words) and the data is checked against
 * the job type's schema on the server as well. Save stays disabled until both pass and
 * something changed; the server checks everything again.
 */
export function ScheduleEditForm({ schedule: s, previewUrl, now, save, onDone }: ScheduleEditFormProps) {
  const id = useId();
  const [pattern, setPattern] = useState(s.pattern);
  const [tz, setTz] = useState(s.tz);
  const [data, setData] = useState(() => JSON.stringify(s.data, null, 2));
  const action = useAction(save);
  const preview = useCronPreview(previewUrl, pattern, tz);
  const { check: dataCheck } = usePayloadCheck(s.jobType, data);
  const zones = useMemo(() => (typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : ['UTC']), []);

  const shown = preview.status === 'done' ? preview.preview : preview.status === 'loading' ? preview.last : undefined;
  const cronOk = preview.status === 'done' && preview.preview.ok;
  const dataOk = dataCheck.ok;
  const changed =
    (preview.status === 'done' && preview.preview.ok && (preview.preview.pattern !== s.pattern || preview.preview.tz !== s.tz)) ||
    (dataCheck.ok && !sameJson(dataCheck.value, s.data));
  const fieldErrors = action.result && !action.result.ok ? action.result.fieldErrors : undefined;
  const cronProblem = preview.status === 'done' && !preview.preview.ok ? preview.preview : undefined;

  return (
    <form
      className="card stack"
      style={{ background: 'var(--surface-2)' }}
      data-testid="schedule-form"
      aria-label={`Edit ${s.name}`}
      onSubmit={async (e) => {
        e.preventDefault();
        const r = await action.run({ name: s.name, pattern, tz, data });
        if (r.ok) onDone(true);
      }}
    >
      <div className="grid">
        <div className="field">
          <label htmlFor={`${id}-pattern`}>Cron pattern (sec min hour day month weekday)</label>
          <input
            id={`${id}-pattern`}
            className="mono"
            value={pattern}
            onChange={(e) => setPattern(e.target.value)}
            autoComplete="off"
            spellCheck={false}
            aria-invalid={cronProblem && cronProblem.field !== 'timezone' ? true : undefined}
            aria-describedby={`${id}-pattern-hint`}
            data-testid="schedule-input-pattern"
          />
          <span id={`${id}-pattern-hint`} className="small muted">
            Default <code>{s.defaults.pattern}</code>
          </span>
          <FieldErrors errors={fieldErrors?.pattern} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-tz`}>Time zone (IANA)</label>
          <input
            id={`${id}-tz`}
            value={tz}
            onChange={(e) => setTz(e.target.value)}
            list={`${id}-zones`}
            autoComplete="off"
            spellCheck={false}
            aria-invalid={cronProblem?.field === 'timezone' ? true : undefined}
            data-testid="schedule-input-tz"
          />
          <datalist id={`${id}-zones`}>
            {zones.map((z) => (
              <option key={z} value={z} />
            ))}
          </datalist>
          <span className="small muted">
            Default <code>{s.defaults.tz}</code>
          </span>
          <FieldErrors errors={fieldErrors?.tz} />
        </div>
      </div>

      <div
        data-testid="schedule-preview"
        data-status={preview.status}
        data-ok={preview.status === 'done' ? String(preview.preview.ok) : undefined}
        aria-live="polite"
      >
        {preview.status === 'error' ? (
          <p className="result error small" role="alert">
            Could not preview: {preview.message}
          </p>
        ) : shown && !shown.ok ? (
          <p className="result error small" data-testid="schedule-preview-error">
            {shown.reason}
          </p>
        ) : shown?.ok ? (
          <div className="stack">
            <p className="small">
              <strong data-testid="schedule-preview-description">{shown.description}</strong>
              <span className="muted"> · next fire times in {shown.tz}:</span>
            </p>
            <NextRuns runs={shown.nextRuns} tz={shown.tz} now={now} testId="schedule-preview-runs" emptyText="No upcoming fire time." />
            {shown.warning && (
              <p className="result info small" role="status" data-testid="schedule-preview-warning">
                Careful: {shown.warning}.
              </p>
            )}
          </div>
        ) : (
          <p className="small muted">Checking the pattern…</p>
        )}
      </div>

      <div className="field">
        <label htmlFor={`${id}-data`}>Data (JSON object; empty keys take the {s.jobType} defaults)</label>
        <textarea
          id={`${id}-data`}
          className="mono"
          rows={Math.min(12, Math.max(3, data.split('\n').length))}
          value={data}
          onChange={(e) => setData(e.target.value)}
          spellCheck={false}
          aria-invalid={!dataOk || undefined}
          data-testid="schedule-input-data"
        />
        <PayloadCheckNote check={dataCheck} type={s.jobType} testId="schedule-data-check" />
        <FieldErrors errors={fieldErrors?.data} />
      </div>

      <div className="row">
        <Button type="submit" variant="primary" disabled={!cronOk || !dataOk || !changed || action.pending} data-testid="schedule-save">
          {action.pending ? 'Saving…' : 'Save'}
        </Button>
        <Button onClick={() => onDone(false)} data-testid="schedule-cancel">
          Cancel
        </Button>
        {!changed && cronOk && dataOk && <span className="small muted">No change yet.</span>}
      </div>
      <InlineResult result={action.result} success="Saved." />
    </form>
  );
}

function FieldErrors({ errors }: { errors?: string[] }) {
  if (!errors?.length) return null;
  return (
    <span className="field-error" role="alert">
      {errors.join('; ')}
    </span>
  );
}
