'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { InlineResult } from '@/components/ui/inline-result';
import { RelativeTime } from '@/components/ui/relative-time';
import { Table } from '@/components/ui/table';
import { useAction } from '@/components/ui/use-action';
import type { ActionResult } from '@/dashboard/client/action-result';
import type { ChannelRow } from '@/dashboard/client/alerts-view';

type Kind = 'slack' | 'webhook' | 'email';

/** The admins' channel actions of app/alerts/actions.ts, handed down by the page (each checks the role itself). */
export interface ChannelActionSet {
  save(input: Record<string, unknown>): Promise<ActionResult<unknown>>;
  remove(input: { id: string }): Promise<ActionResult<{ id: string }>>;
  test(input: { id: string }): Promise<ActionResult<{ id: string; sentAt: number }>>;
}

/** The channels with how their deliveries go (never a URL or a secret); admins add, test and remove them. */
export function ChannelSetup({ channels, actions }: { channels: ChannelRow[]; actions?: ChannelActionSet }) {
  return (
    <section className="card" aria-labelledby="channels-title" data-testid="alert-channels">
      <h2 id="channels-title">Channels</h2>
      {channels.length === 0 ? (
        <p className="muted">No channel: alerts reach the worker's log and /metrics only.</p>
      ) : (
        <Table>
          <thead>
            <tr>
              <th>Channel</th>
              <th>Sends to</th>
              <th>Deliveries</th>
              {actions && <th>Actions</th>}
            </tr>
          </thead>
          <tbody>
            {channels.map((c) => (
              <ChannelRowView key={c.id} channel={c} actions={actions} />
            ))}
          </tbody>
        </Table>
      )}
      {actions && <AddChannel save={actions.save} />}
    </section>
  );
}

function ChannelRowView({ channel: c, actions }: { channel: ChannelRow; actions?: ChannelActionSet }) {
  const router = useRouter();
  const none = async () => ({ ok: false, code: 'FORBIDDEN', message: 'admins only' }) as const;
  const test = useAction(actions?.test ?? none);
  const remove = useAction(actions?.remove ?? none);
  const failing = c.failuresInARow > 0;
  return (
    <tr data-testid={`channel-${c.id}`}>
      <td>
        {c.name} <span className="small muted mono">{c.id}</span> <Badge>{c.kind}</Badge>
      </td>
      <td className="mono small">
        {c.host}
        {c.to && ` → ${c.to.join(', ')}`}
        <div className="muted">
          {Object.entries(c.secrets)
            .filter(([, set]) => set)
            .map(([k]) => `${k} set`)
            .join(', ')}
        </div>
      </td>
      <td data-testid="channel-status">
        {failing ? (
          <Badge tone="danger" testId="channel-failing">
            failing ({c.failuresInARow} in a row)
          </Badge>
        ) : c.lastOkAt ? (
          <Badge tone="ok" testId="channel-ok">
            ok
          </Badge>
        ) : (
          <Badge>not used yet</Badge>
        )}
        {c.pending > 0 && <div className="small">{c.pending} waiting for a retry</div>}
        {c.lastOkAt && (
          <div className="small muted">
            last sent <RelativeTime ms={c.lastOkAt} />
          </div>
        )}
        {failing && c.lastError && <div className="small mono">{c.lastError}</div>}
        {c.dropped > 0 && <div className="small">{c.dropped} dropped after their last retry</div>}
      </td>
      {actions && (
        <td>
          <div className="row">
            <Button
              size="sm"
              disabled={test.pending}
              data-testid="channel-test"
              onClick={() => void test.run({ id: c.id }).then((r) => r.ok && router.refresh())}
            >
              {test.pending ? 'Sending…' : 'Send a test'}
            </Button>
            <Button
              size="sm"
              variant="danger"
              disabled={remove.pending}
              data-testid="channel-remove"
              onClick={() => void remove.run({ id: c.id }).then((r) => r.ok && router.refresh())}
            >
              Remove
            </Button>
          </div>
          <InlineResult result={test.result ?? remove.result} success="Sent." testId="channel-result" />
        </td>
      )}
    </tr>
  );
}

function AddChannel({ save }: { save: ChannelActionSet['save'] }) {
  const router = useRouter();
  const [kind, setKind] = useState<Kind>('slack');
  const action = useAction(save);
  return (
    <form
      className="stack"
      style={{ marginTop: '1rem' }}
      aria-label="Add a channel"
      data-testid="channel-form"
      onSubmit={(e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        const input: Record<string, unknown> = { kind };
        for (const [k, v] of form.entries()) if (typeof v === 'string' && k !== 'secure') input[k] = v;
        if (kind === 'email') input.secure = form.get('secure') === 'on';
        if (input.port === '') delete input.port;
        const target = e.currentTarget;
        void action.run(input).then((r) => {
          if (!r.ok) return;
          target.reset();
          router.refresh();
        });
      }}
    >
      <h3>Add or replace a channel</h3>
      <div className="row">
        <label>
          Kind{' '}
          <select value={kind} onChange={(e) => setKind(e.target.value as Kind)} data-testid="channel-kind">
            <option value="slack">Slack incoming webhook</option>
            <option value="webhook">Signed webhook</option>
            <option value="email">Email (SMTP)</option>
          </select>
        </label>
        <label>
          Id <input name="id" required maxLength={40} pattern="[a-z0-9][a-z0-9\-]*" data-testid="channel-id" />
        </label>
        <label>
          Name <input name="name" required maxLength={80} data-testid="channel-name" />
        </label>
      </div>
      {kind !== 'email' && (
        <div className="row">
          <label>
            URL <input name="url" type="password" autoComplete="off" size={50} data-testid="channel-url" />
          </label>
          {kind === 'webhook' && (
            <label>
              Signing secret <input name="secret" type="password" autoComplete="off" minLength={16} data-testid="channel-secret" />
            </label>
          )}
        </div>
      )}
      {kind === 'email' && (
        <div className="row">
          <label>
            SMTP host <input name="host" data-testid="channel-host" />
          </label>
          <label>
            Port <input name="port" type="number" min={1} max={65535} placeholder="587" />
          </label>
          <label>
            <input name="secure" type="checkbox" /> TLS from the start (465)
          </label>
          <label>
            User <input name="user" autoComplete="off" />
          </label>
          <label>
            Password <input name="password" type="password" autoComplete="new-password" />
          </label>
          <label>
            From <input name="from" type="email" />
          </label>
          <label>
            To (comma-separated) <input name="to" />
          </label>
        </div>
      )}
      <p className="small muted">
        URLs, secrets and passwords are stored for the worker and never shown again; leave one empty when replacing a channel to keep it.
      </p>
      <div>
        <Button type="submit" variant="primary" disabled={action.pending} data-testid="channel-save">
          Save channel
        </Button>
      </div>
      <InlineResult result={action.result} success="Channel saved." testId="channel-save-result" />
    </form>
  );
}
