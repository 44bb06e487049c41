'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { ErrorResult } from '@/components/ui/inline-result';
import { useAction } from '@/components/ui/use-action';
import type { ActionResult } from '@/dashboard/client/action-result';
import type { Reenabled, WebhookReplays } from '@/dashboard/client/read-models';
import { DeliveryJobLink } from './delivery-job-link';
import type { WebhookRow } from '@/dashboard/client/read-models';

/** The server actions of app/webhooks/actions.ts, handed down by the page (operators only; each checks the role itself). */
export interface WebhookActionSet {
  enable(input: { id: string }): Promise<ActionResult<Reenabled>>;
  test(input: { id: string }): Promise<ActionResult<{ jobId: string; deliveryId: string }>>;
  replay(input: { id: string; limit: number }): Promise<ActionResult<WebhookReplays>>;
}

/**
 * Mending a webhook: re-enable it (its failure window starts from zero), send a real test
 * event, then replay its pending dead letters, a bounded batch at a time.
 */
export function WebhookActions(props: {
  webhook: WebhookRow;
  /** The type whose jobs deliver the webhooks (WebhookDetail.deliveryJobType). */
  jobType: string | null;
  pendingFound: number;
  maxReplays: number;
  actions: WebhookActionSet;
  onChanged(): void;
}) {
  const { webhook, pendingFound, maxReplays, actions, onChanged } = props;
  const router = useRouter();
  const enable = useAction(actions.enable);
  const test = useAction(actions.test);
  const replay = useAction(actions.replay);
  const [limit, setLimit] = useState(maxReplays);
  const disabled = webhook.state === 'disabled';
  const busy = enable.pending || test.pending || replay.pending;
  const after = (ok: boolean) => {
    if (!ok) return;
    onChanged();
    router.refresh();
  };
  return (
    <section className="card" aria-labelledby="mend-title" data-testid="webhook-actions">
      <h2 id="mend-title">Mend</h2>
      <div className="row" role="group" aria-label="Webhook actions">
        {disabled && (
          <ConfirmDialog
            variant="primary"
            testId="webhook-enable"
            triggerLabel="Re-enable"
            title={`Re-enable ${webhook.id}?`}
            description={
              <p>
                Deliveries are sent again, and its {webhook.failuresInWindow.toLocaleString('en')} failed attempts of the last 24 h no
                longer count: it is disabled again after {webhook.maxFailures.toLocaleString('en')} new ones. Fix the receiver first.
              </p>
            }
            confirmLabel="Re-enable"
            disabled={busy}
            onConfirm={() => {
              test.reset();
              replay.reset();
              void enable.run({ id: webhook.id }).then((r) => after(r.ok));
            }}
          />
        )}
        <Button
          disabled={busy || disabled}
          data-testid="webhook-test"
          onClick={() => {
            enable.reset();
            replay.reset();
            void test.run({ id: webhook.id }).then((r) => after(r.ok));
          }}
        >
          {test.pending ? 'Sending…' : 'Send a test event'}
        </Button>
      </div>
      {disabled && <p className="small muted">Disabled: re-enable it before sending a test event or replaying its dead letters.</p>}
      <form
        className="row"
        style={{ marginTop: '0.75rem' }}
        aria-label="Replay pending dead letters"
        onSubmit={(e) => {
          e.preventDefault();
          enable.reset();
          test.reset();
          void replay.run({ id: webhook.id, limit }).then((r) => after(r.ok));
        }}
      >
        <label className="field" htmlFor="webhook-replay-limit">
          <span>Replay at most</span>
          <input
            id="webhook-replay-limit"
            type="number"
            min={1}
            max={maxReplays}
            value={limit}
            onChange={(e) => setLimit(Math.min(maxReplays, Math.max(1, Number(e.target.value) || 1)))}
            data-testid="webhook-replay-limit"
          />
        </label>
        <Button type="submit" variant="primary" disabled={busy || disabled || pendingFound === 0} data-testid="webhook-replay-dead-letters">
          {replay.pending ? 'Replaying…' : 'Replay pending dead letters'}
        </Button>
      </form>
      <Results jobType={props.jobType} enable={enable.result} test={test.result} replay={replay.result} />
    </section>
  );
}

function Results(props: {
  jobType: string | null;
  enable: ActionResult<Reenabled> | null;
  test: ActionResult<{ jobId: string; deliveryId: string }> | null;
  replay: ActionResult<WebhookReplays> | null;
}) {
  const failed = [props.enable, props.test, props.replay].find((r) => r && !r.ok);
  if (failed && !failed.ok) return <ErrorResult result={failed} />;
  if (props.enable?.ok) {
    return (
      <p className="result ok" role="status" data-testid="action-result" data-ok="true">
        Re-enabled: deliveries go out again, and its failure window starts from zero.
      </p>
    );
  }
  if (props.test?.ok) {
    return (
      <p className="result ok" role="status" data-testid="action-result" data-ok="true">
        Test event queued as{' '}
        <DeliveryJobLink jobType={props.jobType} jobId={props.test.data.jobId} className="mono" testId="webhook-test-job" />; its delivery
        shows below once the worker sent it.
      </p>
    );
  }
  if (props.replay?.ok) {
    const { replayed, refused, complete, scanned, outcomes, outcomeText } = props.replay.data;
    // A replay that failed at once is not a repair: the result says so first, in red.
    const wentWrong = refused.length > 0 || outcomes.failed > 0;
    return (
      <div
        className={`result ${wentWrong ? 'error' : 'ok'}`}
        role="status"
        data-testid="action-result"
        data-ok="true"
        data-replayed={replayed.length}
        data-refused={refused.length}
        data-failed-at-once={outcomes.failed}
      >
        <p style={{ margin: 0 }}>
          {replayed.length === 0 && refused.length === 0
            ? 'No pending dead letter of this webhook was found.'
            : `Enqueued ${replayed.length} replay${replayed.length === 1 ? '' : 's'}${refused.length > 0 ? `; ${refused.length} refused` : ''}.`}
          {outcomeText && ` ${outcomeText.charAt(0).toUpperCase()}${outcomeText.slice(1)}.`}
          {!complete && ` Looked at the newest ${scanned.toLocaleString('en')} pending webhook dead letters; press again for more.`}
        </p>
        {outcomes.failures.length > 0 && (
          <ul className="small">
            {outcomes.failures.map((f) => (
              <li key={f.id} data-testid="webhook-replay-failed">
                <Link href={`/dead-letters/${encodeURIComponent(f.id)}`} className="mono">
                  {f.id}
                </Link>
                : {f.message}
              </li>
            ))}
          </ul>
        )}
        {replayed.length > 0 && (
          <ul className="small">
            {replayed.map((r) => (
              <li key={r.id}>
                <Link href={`/dead-letters/${encodeURIComponent(r.id)}`} className="mono">
                  {r.id}
                </Link>{' '}
                as <DeliveryJobLink jobType={props.jobType} jobId={r.jobId} className="mono" testId="webhook-replayed-job" />
              </li>
            ))}
          </ul>
        )}
        {refused.length > 0 && (
          <ul className="small">
            {refused.map((r) => (
              <li key={r.id} data-testid="webhook-replay-refused">
                <span className="mono">{r.id}</span>: {r.message}
              </li>
            ))}
          </ul>
        )}
      </div>
    );
  }
  return null;
}
