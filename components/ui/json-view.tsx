'use client';

import { useState } from 'react';

export interface JsonViewProps {
  value: unknown;
  /** Set when the server already cut the value (see dashboard/jobs/truncate). */
  truncated?: boolean;
  /** Original size in bytes, shown with the truncation note. */
  originalBytes?: number;
  /** Characters shown before "Show all". @defaultValue 4000 */
  previewChars?: number;
  testId?: string;
  /**
   * The scrolling box's name. Each box on a page needs its own: it is a region landmark,
   * and two with one name (or none) fail axe's landmark-unique.
   * @defaultValue "JSON value"
   */
  label?: string;
}

/** Pretty-printed JSON in a scrolling box; long values open collapsed, cut values say so. */
export function JsonView({ value, truncated, originalBytes, previewChars = 4_000, testId, label }: JsonViewProps) {
  const text = typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? 'undefined');
  const [expanded, setExpanded] = useState(false);
  const long = text.length > previewChars;
  return (
    <div className="stack">
      <pre className="json" data-testid={testId} role="region" aria-label={label ?? 'JSON value'} tabIndex={0}>
        {long && !expanded ? `${text.slice(0, previewChars)}\n…` : text}
      </pre>
      <div className="row small muted">
        {long && (
          <button type="button" className="btn btn-sm" onClick={() => setExpanded((e) => !e)}>
            {expanded ? 'Collapse' : `Show all (${text.length.toLocaleString('en')} characters)`}
          </button>
        )}
        {truncated && (
          <span data-testid={testId ? `${testId}-truncated` : undefined}>
            Truncated by the server{originalBytes ? ` (original ${formatBytes(originalBytes)})` : ''}.
          </span>
        )}
      </div>
    </div>
  );
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
