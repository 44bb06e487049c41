import { isAppError } from '@/lib/errors/app-error';
import type { Tenant } from '@/lib/jobs/tenant';
import { tenantKey } from '@/lib/jobs/tenant-key';
import type { MemoryStore } from '../../memory/memories/memory-store';
import type { Synthesiser } from '../../shared/ports/synthesiser/synthesiser';
import type { SlackClient, SlackMessage } from './slack-client';
import { SlackSyncStateStore, type SlackSyncState } from './slack-sync-state';
import { compareSlackTs, slackTsToMs } from './slack-ts';
import { digest32 } from '../../shared/hash';

/** Marks Bullpen's own summary posts (Slack message metadata), so a sync never imports them. */
export const SUMMARY_EVENT_TYPE = 'bullpen_sync_summary';
/** Importance of a memory made from a Slack message: ordinary, neither kept nor dropped first. */
export const SLACK_MEMORY_IMPORTANCE = 0.5;
/** Messages per conversations.history call; Slack recommends no more than 200. */
const PAGE_SIZE = 200;
/** Pages searched for an earlier attempt's summary before posting it again. */
const SUMMARY_SEARCH_PAGES = 5;
const MAX_CONTENT = 32_000;
const USER_ID = /^[A-Za-z0-9_.-]{1,128}$/;

export interface SlackSyncRequest {
  tenant: Tenant;
  channelId: string;
  /** Messages fetched in this run at most; the rest is fetched by the next run. */
  limit: number;
  postSummary: boolean;
  now: number;
  signal?: AbortSignal;
  onProgress?(percent: number, phase: string, detail?: Record<string, unknown>): Promise<void>;
}

export interface SlackSyncResult {
  /** Messages read from Slack in this run. */
  fetched: number;
  /** Memories written; `existing` were already there (a retried page). */
  created: number;
  existing: number;
  /** Messages that are not conversation (joins, topic changes, empty, our summaries). */
  skipped: number;
  /** False when the limit stopped the run before it reached the cursor: run again. */
  complete: boolean;
  cursorTs?: string;
  /** The ts of the summary posted (or found already posted) by this run. */
  summaryTs?: string;
}

/** The memory id of a message: one per tenant, channel and ts, whatever the attempt. */
export function slackMemoryId(tenant: Tenant, channelId: string, ts: string): string {
  return `slack-${digest32(`${tenantKey(tenant)}|${channelId}|${ts}`)}`;
}

/**
 * Pulls a channel's new messages into episodic memories and, when asked, posts a
 * summary of each completed window. Retries do not duplicate: memory ids derive from
 * the message, the cursor moves only once a window is complete (with progress saved
 * page by page while it is not), and a window's summary is posted once — a retry that
 * may have posted it already looks for it in the channel first.
 */
export class SlackChannelSync {
  constructor(
    private readonly client: SlackClient,
    private readonly states: SlackSyncStateStore,
    private readonly memories: MemoryStore,
    private readonly synthesiser: Synthesiser,
  ) {}

  async sync(req: SlackSyncRequest): Promise<SlackSyncResult> {
    const progress = req.onProgress ?? (async () => undefined);
    let state: SlackSyncState = (await this.states.get(req.tenant, req.channelId)) ?? {
      id: SlackSyncStateStore.idOf(req.tenant, req.channelId),
      tenant: req.tenant,
      channelId: req.channelId,
      updatedAt: req.now,
    };
    let summaryTs: string | undefined;
    if (state.summaryDue) ({ state, summaryTs } = await this.postDue(state, req));

    const upper = state.backfill?.latest;
    let newest = state.backfill?.newest;
    let messages = state.backfill?.messages ?? 0;
    let sample = state.backfill?.sample ?? [];
    const out = { fetched: 0, created: 0, existing: 0, skipped: 0 };
    let cursor: string | undefined;
    await progress(5, 'fetching');

    for (;;) {
      req.signal?.throwIfAborted();
      const page = await this.client.history(
        { channel: req.channelId, oldest: state.cursorTs, latest: upper, cursor, limit: Math.min(PAGE_SIZE, req.limit - out.fetched) },
        req.signal,
      );
      if (page.messages.length === 0) break;
      const sorted = [...page.messages].sort((a, b) => compareSlackTs(b.ts, a.ts));
      if (!newest || compareSlackTs(sorted[0].ts, newest) > 0) newest = sorted[0].ts;
      const wanted = sorted.filter(isConversation);
      for (const m of wanted) {
        if (await this.remember(req.tenant, req.channelId, m)) out.created++;
        else out.existing++;
      }
      out.fetched += page.messages.length;
      out.skipped += page.messages.length - wanted.length;
      messages += wanted.length;
      sample = [...sample, ...wanted.map((m) => m.text!.trim())].slice(0, 50);
      await progress(Math.min(85, 5 + (80 * out.fetched) / req.limit), 'fetching', { fetched: out.fetched });
      if (!page.nextCursor) break;
      // Saved before the next page: a crash from here resumes below this page, not from the top.
      const oldest = sorted[sorted.length - 1].ts;
      state = await this.states.save({ ...state, backfill: { newest, latest: oldest, messages, sample }, updatedAt: req.now });
      if (out.fetched >= req.limit) return { ...out, complete: false, cursorTs: state.cursorTs, summaryTs };
      cursor = page.nextCursor;
    }

    const windowFrom = state.cursorTs;
    const done: SlackSyncState = { ...state, cursorTs: newest ?? state.cursorTs, backfill: undefined, updatedAt: req.now };
    if (req.postSummary && newest && messages > 0) {
      await progress(88, 'summarising');
      const body = await this.synthesiser.synthesise(sample, req.signal);
      done.summaryDue = {
        ...(windowFrom ? { from: windowFrom } : {}),
        to: newest,
        text: `${messages} new message${messages === 1 ? '' : 's'} synced into memory.\n${body}`,
      };
    }
    state = await this.states.save(done);
    if (state.summaryDue) ({ state, summaryTs } = await this.postDue(state, req));
    await progress(100, 'complete', { ...out });
    return { ...out, complete: true, cursorTs: state.cursorTs, summaryTs };
  }

  /** Writes the message's memory; false when it already exists. */
  private async remember(tenant: Tenant, channelId: string, m: SlackMessage): Promise<boolean> {
    try {
      await this.memories.create({
        id: slackMemoryId(tenant, channelId, m.ts),
        kind: 'episodic',
        content: m.text!.trim().slice(0, MAX_CONTENT),
        importance: SLACK_MEMORY_IMPORTANCE,
        tenant,
        ...(m.user && USER_ID.test(m.user) ? { userId: m.user } : {}),
        metadata: {
          source: 'slack',
          channelId,
          ts: m.ts,
          ...(m.user ? { user: m.user } : {}),
          ...(m.thread_ts ? { threadTs: m.thread_ts } : {}),
        },
        createdAt: slackTsToMs(m.ts),
      });
      return true;
    } catch (err) {
      if (isAppError(err) && err.code === 'CONFLICT') return false;
      throw err;
    }
  }

  /** Posts the window's summary once; marks the attempt first so a retry checks Slack before posting again. */
  private async postDue(state: SlackSyncState, req: SlackSyncRequest): Promise<{ state: SlackSyncState; summaryTs?: string }> {
    const due = state.summaryDue!;
    let ts = due.attemptedAt ? await this.findSummary(req.channelId, due.to, req.signal) : undefined;
    if (!ts) {
      state = await this.states.save({ ...state, summaryDue: { ...due, attemptedAt: req.now }, updatedAt: req.now });
      ({ ts } = await this.client.postMessage(
        {
          channel: req.channelId,
          text: due.text,
          metadata: { event_type: SUMMARY_EVENT_TYPE, event_payload: { window_to: due.to } },
        },
        { signal: req.signal, idempotencyKey: `slack-summary:${state.id}:${due.to}` },
      ));
    }
    state = await this.states.save({
      ...state,
      summaryDue: undefined,
      lastSummary: { to: due.to, ts, postedAt: req.now },
      updatedAt: req.now,
    });
    return { state, summaryTs: ts };
  }

  /** The ts of a summary of the window ending at `to` already in the channel, if any. */
  private async findSummary(channel: string, to: string, signal?: AbortSignal): Promise<string | undefined> {
    let cursor: string | undefined;
    for (let i = 0; i < SUMMARY_SEARCH_PAGES; i++) {
      const page = await this.client.history({ channel, oldest: to, cursor, limit: PAGE_SIZE }, signal);
      const hit = page.messages.find((m) => isOurSummary(m) && m.metadata?.event_payload?.window_to === to);
      if (hit) return hit.ts;
      if (!page.nextCursor) return undefined;
      cursor = page.nextCursor;
    }
    return undefined;
  }
}

function isOurSummary(m: SlackMessage): boolean {
  return m.metadata?.event_type === SUMMARY_EVENT_TYPE;
}

/** A message people wrote: has text, is not a join/leave/topic notice, is not our summary. */
function isConversation(m: SlackMessage): boolean {
  if (!m.text?.trim() || isOurSummary(m)) return false;
  return !m.subtype || ['bot_message', 'me_message', 'thread_broadcast', 'file_share'].includes(m.subtype);
}
