import 'server-only';
import type { Bullpen } from '@/lib/bullpen';
import type { DeadLetterEntry } from '@/lib/dlq/entry';
import {
  awaitReplayOutcomes,
  describeReplayOutcomes,
  REPLAY_OUTCOME_WAIT_MS,
  type ReplayedJob,
  type ReplayOutcomes,
  replayedJobOf,
} from '@/lib/dlq/replay-outcomes';
import { AppError, isAppError } from '@/lib/errors/app-error';
import { type Webhook, WEBHOOK_TEST_EVENT } from '@/lib/webhooks/webhook-schema';

/** Pending webhook-dispatch dead letters read, newest first, to find one webhook's: the DLQ has no index by webhook. */
export const DEAD_LETTERS_SCANNED = 1_000;
/** Dead letters replayed by one press of "Replay pending dead letters". */
export const MAX_WEBHOOK_REPLAYS = 50;
/** Dead letters read per DLQ page while looking. */
const SCAN_PAGE = 100;

export interface PendingDeadLetters {
  entries: DeadLetterEntry[];
  /** Pending webhook-dispatch dead letters read to find them. */
  scanned: number;
  /** Every pending webhook-dispatch dead letter was read (none of this webhook's can be missing). */
  complete: boolean;
}

/**
 * The webhook's pending dead letters, newest first, at most `limit`: found among the
 * newest DEAD_LETTERS_SCANNED pending webhook-dispatch entries, a page of the DLQ's
 * status-and-type index at a time (no full scan).
 */
export async function findPendingDeadLetters(bullpen: Bullpen, webhookId: string, limit: number): Promise<PendingDeadLetters> {
  const entries: DeadLetterEntry[] = [];
  let scanned = 0;
  let cursor: string | undefined;
  do {
    const page = await bullpen.dlq.list({ type: deliveryJobType(bullpen), status: 'pending' }, { limit: SCAN_PAGE, cursor });
    scanned += page.entries.length;
    for (const e of page.entries) {
      if (entries.length < limit && (e.payload as { webhookId?: unknown } | null)?.webhookId === webhookId) entries.push(e);
    }
    cursor = page.nextCursor;
  } while (cursor && entries.length < limit && scanned < DEAD_LETTERS_SCANNED);
  return { entries, scanned, complete: cursor === undefined };
}

/** The webhook, refused with what to do when it is disabled: every delivery to it would fail at once, without a request. */
async function requireActive(bullpen: Bullpen, id: string, what: string): Promise<Webhook> {
  const webhook = await bullpen.webhooks.get(id);
  if (!webhook.enabled) {
    throw new AppError(
      'CONFLICT',
      `Webhook ${id} is disabled${webhook.disabledReason ? ` (${webhook.disabledReason})` : ''}: re-enable it first, or ${what} would fail at once without a request`,
    );
  }
  return webhook;
}

export interface Reenabled {
  id: string;
  /** What the webhook was before: for the audit entry. */
  before: { disabledAt?: number; disabledReason?: string; failuresInWindow: number };
}

/**
 * Turns a disabled webhook back on and empties its failure window, so the operator's fix
 * starts from zero (lib/webhooks/webhook-store.ts `enable`). An active webhook is refused:
 * enabling it would silently forget the failures that count toward its limit.
 */
export async function reenableWebhook(bullpen: Bullpen, id: string): Promise<Reenabled> {
  const webhook = await bullpen.webhooks.get(id);
  if (webhook.enabled)
    throw new AppError('CONFLICT', `Webhook ${id} is already active; nothing changed (its failures in the last 24 h are kept)`);
  const failuresInWindow = await bullpen.webhooks.failureCount(id);
  await bullpen.webhooks.enable(id);
  return { id, before: { disabledAt: webhook.disabledAt, disabledReason: webhook.disabledReason, failuresInWindow } };
}

/**
 * The job type that delivers the application's webhooks: the application names it
 * (webhookJobType in its definition); the dashboard names no job type of its own.
 */
function deliveryJobType(bullpen: Bullpen): string {
  if (!bullpen.webhookJobType) {
    throw new AppError('CONFLICT', 'This application names no job type that delivers webhooks (webhookJobType in its definition)');
  }
  return bullpen.webhookJobType;
}

/** A real delivery of a test event through the application's delivering job type, as any event is sent. */
export async function sendTestEvent(bullpen: Bullpen, id: string, by: string): Promise<{ jobId: string; deliveryId: string }> {
  const webhook = await requireActive(bullpen, id, 'the test event');
  const { jobId } = await bullpen.dispatcher.dispatch(
    deliveryJobType(bullpen),
    { webhookId: webhook.id, event: WEBHOOK_TEST_EVENT, payload: { test: true, sentBy: by, sentAt: new Date().toISOString() } },
    // A job for an owned webhook carries its owner's tenant, as the owner's own dispatches do.
    webhook.orgId ? { tenant: { orgId: webhook.orgId } } : {},
  );
  // Without a deliveryId in the payload the job id is the delivery id (docs/webhooks.md).
  return { jobId, deliveryId: jobId };
}

export interface WebhookReplays {
  replayed: Array<{ id: string; jobId: string }>;
  /**
   * What the replayed jobs did within a bounded wait (lib/dlq/replay-outcomes.ts): a
   * replay that fails at once (an idempotency conflict, a receiver's 4xx) is counted
   * here, never as done.
   */
  outcomes: ReplayOutcomes;
  /** The outcomes in words, for the result line. */
  outcomeText: string;
  /** Refused at once (someone replayed it meanwhile, an invalid payload): with the reason. */
  refused: Array<{ id: string; code: string; message: string }>;
  scanned: number;
  /** Every pending webhook-dispatch dead letter was looked at. */
  complete: boolean;
}

/**
 * Replays the webhook's pending dead letters, at most `limit` (MAX_WEBHOOK_REPLAYS), each
 * through the DLQ's replay (fresh attempts, its replay count checked, so a second operator
 * or a double press replays once). Refused while the webhook is disabled.
 */
export async function replayWebhookDeadLetters(
  bullpen: Bullpen,
  id: string,
  opts: { by: string; limit: number; waitMs?: number },
): Promise<WebhookReplays> {
  await requireActive(bullpen, id, 'their replays');
  const limit = Math.min(Math.max(1, Math.trunc(opts.limit)), MAX_WEBHOOK_REPLAYS);
  const found = await findPendingDeadLetters(bullpen, id, limit);
  const replayed: ReplayedJob[] = [];
  const refused: WebhookReplays['refused'] = [];
  for (const entry of found.entries) {
    try {
      replayed.push(replayedJobOf(await bullpen.dlq.replay(entry.id, { by: opts.by, expectedReplays: entry.replays.length })));
    } catch (err) {
      if (!isAppError(err)) throw err;
      refused.push({ id: entry.id, code: err.code, message: err.message });
    }
  }
  // Every replay is enqueued first, then one bounded wait for all of them, as the
  // dead-letter page's bulk replay does (docs/dead-letters.md#bulk-actions).
  const waitMs = opts.waitMs ?? REPLAY_OUTCOME_WAIT_MS;
  const outcomes = await awaitReplayOutcomes(bullpen.queues, replayed, { waitMs });
  return {
    replayed: replayed.map((r) => ({ id: r.id, jobId: r.jobId })),
    outcomes,
    outcomeText: describeReplayOutcomes(outcomes, waitMs),
    refused,
    scanned: found.scanned,
    complete: found.complete,
  };
}
