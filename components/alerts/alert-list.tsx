'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { InlineResult } from '@/components/ui/inline-result';
import { RelativeTime } from '@/components/ui/relative-time';
import { Table } from '@/components/ui/table';
import { useAction } from '@/components/ui/use-action';
import type { ActionResult } from '@/dashboard/client/action-result';
import { type FiringRow, type ResolvedRow, SILENCE_MINUTES } from '@/dashboard/client/alerts-view';

/** The operators' actions of app/alerts/actions.ts, handed down by the page (each checks the role itself). */
export interface AlertActionSet {
  acknowledge(input: { key: string }): Promise<ActionResult<{ key: string }>>;
  silence(input: { key: string; minutes: number }): Promise<ActionResult<{ key: string; until: number }>>;
}

const label = (m: number) => (m < 60 ? `${m} min` : m < 1_440 ? `${m / 60} h` : `${m / 1_440} d`);

/** What fires now, since when, with its evidence; operators acknowledge or silence it. */
export function FiringAlerts({ rows, actions }: { rows: FiringRow[]; actions?: AlertActionSet }) {
  return (
    <section className="card" aria-labelledby="firing-title" data-testid="alerts-firing">
      <h2 id="firing-title">Firing</h2>
      {rows.length === 0 ? (
        <p className="muted" data-testid="alerts-none-firing">
          Nothing fires.
        </p>
      ) : (
        <Table>
          <thead>
            <tr>
              <th>Alert</th>
              <th>Value</th>
              <th>Since</th>
              <th>State</th>
              {actions && <th>Actions</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <FiringRowView key={r.key} row={r} actions={actions} />
            ))}
          </tbody>
        </Table>
      )}
    </section>
  );
}

function FiringRowView({ row, actions }: { row: FiringRow; actions?: AlertActionSet }) {
  const router = useRouter();
  const ack = useAction(actions?.acknowledge ?? (async () => ({ ok: false, code: 'FORBIDDEN', message: 'operators only' }) as const));
  const silence = useAction(actions?.silence ?? (async () => ({ ok: false, code: 'FORBIDDEN', message: 'operators only' }) as const));
  const [minutes, setMinutes] = useState<number>(SILENCE_MINUTES[1]);
  const done = (ok: boolean) => ok && router.refresh();
  return (
    <tr data-testid={`alert-${row.key}`}>
      <td>
        <Link href={row.path}>{row.summary}</Link>
        <div className="small muted mono">{row.key}</div>
      </td>
      <td className="mono">{row.value.toLocaleString('en')}</td>
      <td>
        <RelativeTime ms={row.since} />
      </td>
      <td>
        {row.silencedUntil ? (
          <Badge tone="neutral" testId="alert-silenced">
            silenced until {new Date(row.silencedUntil).toISOString().slice(0, 16).replace('T', ' ')} UTC
          </Badge>
        ) : row.acknowledged ? (
          <Badge tone="info" testId="alert-acknowledged">
            acknowledged by {row.acknowledged.by}
          </Badge>
        ) : (
          <Badge tone="danger">firing</Badge>
        )}
      </td>
      {actions && (
        <td>
          <div className="row">
            {!row.acknowledged && (
              <Button
                size="sm"
                disabled={ack.pending}
                data-testid="alert-ack"
                onClick={() => void ack.run({ key: row.key }).then((r) => done(r.ok))}
              >
                Acknowledge
              </Button>
            )}
            <select
              aria-label="Silence for"
              value={minutes}
              onChange={(e) => setMinutes(Number(e.target.value))}
              data-testid="alert-silence-minutes"
            >
              {SILENCE_MINUTES.map((m) => (
                <option key={m} value={m}>
                  {label(m)}
                </option>
              ))}
            </select>
            <Button
              size="sm"
              disabled={silence.pending}
              data-testid="alert-silence"
              onClick={() => void silence.run({ key: row.key, minutes }).then((r) => done(r.ok))}
            >
              Silence
            </Button>
          </div>
          <InlineResult result={ack.result ?? silence.result} />
        </td>
      )}
    </tr>
  );
}

/** The latest resolved alerts, with how long each held. */
export function ResolvedAlerts({ rows }: { rows: ResolvedRow[] }) {
  return (
    <section className="card" aria-labelledby="resolved-title" data-testid="alerts-resolved">
      <h2 id="resolved-title">Resolved</h2>
      {rows.length === 0 ? (
        <p className="muted">None yet.</p>
      ) : (
        <Table>
          <thead>
            <tr>
              <th>Alert</th>
              <th>Last value</th>
              <th>Fired</th>
              <th>Resolved</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.key}:${r.resolvedAt}`}>
                <td>
                  <Link href={r.path}>{r.summary}</Link>
                </td>
                <td className="mono">{r.value.toLocaleString('en')}</td>
                <td>
                  <RelativeTime ms={r.since} />
                </td>
                <td>
                  <RelativeTime ms={r.resolvedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </section>
  );
}
