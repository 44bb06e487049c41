import { useTestRedis } from '../../helpers/use-test-redis';
import { storesOf } from '../../helpers/shipped-jobs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { PermanentError } from '@/lib/errors/permanent-error';
import { HttpClient } from '@/lib/http/http-client';
import { readyClient } from '@/lib/redis/connection';
import { MemoryStore } from '@/jobs/memory/memories/memory-store';
import { slackMemoryId, SUMMARY_EVENT_TYPE } from '@/jobs/integration/slack/slack-channel-sync';
import { SlackSyncStateStore } from '@/jobs/integration/slack/slack-sync-state';
import { createSlackSyncHandler } from '@/jobs/integration/slack-sync';
import { makeBullpen } from '../../helpers/make-bullpen';
import { makeJobContext } from '../../helpers/job-context';
import { FakeSlack } from '../../fixtures/fake-slack';

const TOKEN = 'xoxb-test-token';
const acme = { orgId: 'acme' };
const globex = { orgId: 'globex' };
const CH = 'C0123ABCD';

let slack: FakeSlack;
let bullpen: Bullpen;
let memories: MemoryStore;
let states: SlackSyncStateStore;

const server = useTestRedis();
beforeEach(async () => {
  slack = new FakeSlack(TOKEN);
  await slack.start();
  bullpen = makeBullpen(server.redis, { env: { SLACK_TOKEN: TOKEN, SLACK_BASE_URL: slack.url } });
  await readyClient(bullpen.redis);
  memories = new MemoryStore(bullpen.redis, bullpen.keys);
  states = new SlackSyncStateStore(bullpen.redis, bullpen.keys);
});
afterEach(async () => {
  await bullpen.close();
  await slack.stop();
});

/** Fast retries so an injected 5xx costs milliseconds. */
const handler = () => createSlackSyncHandler(storesOf(bullpen), { http: new HttpClient({ policy: { baseDelayMs: 1, maxDelayMs: 2 } }) });
const payload = (over: Partial<{ limit: number; postSummary: boolean }> = {}) => ({
  channelId: CH,
  limit: 1_000,
  postSummary: false,
  ...over,
});

describe('slack-sync', () => {
  it('pulls new channel messages into the tenant’s memories and keeps a cursor: running again adds nothing', async () => {
    const said = slack.say(CH, 250);
    slack.say(CH, 1, { subtype: 'channel_join', text: '<@U9> has joined the channel' });
    slack.say(CH, 1, { text: '   ' });

    const ctx = makeJobContext('slack-sync', payload(), { tenant: acme });
    const result = await handler()(ctx);
    expect(result).toMatchObject({ fetched: 252, created: 250, existing: 0, skipped: 2, complete: true });
    expect(await memories.count(acme)).toBe(250);
    const m = await memories.get(slackMemoryId(acme, CH, said[7].ts));
    expect(m).toMatchObject({
      kind: 'episodic',
      content: said[7].text,
      tenant: acme,
      userId: said[7].user,
      metadata: { source: 'slack', channelId: CH, ts: said[7].ts },
      createdAt: Math.floor(Number(said[7].ts) * 1000),
    });
    const state = await states.get(acme, CH);
    expect(state?.cursorTs).toBe(result.cursorTs);
    expect(Number(state!.cursorTs)).toBeGreaterThan(Number(said[249].ts));
    expect(ctx.progressReports.filter((p) => p.phase === 'fetching').length).toBeGreaterThanOrEqual(3);
    expect(ctx.progressReports.at(-1)).toMatchObject({ percent: 100, phase: 'complete' });
    // The history calls carried the token and asked for what the cursor allows.
    expect(slack.calls.every((c) => c.method === 'conversations.history')).toBe(true);

    const again = await handler()(makeJobContext('slack-sync', payload(), { tenant: acme, jobId: ctx.jobId, attempt: 2 }));
    expect(again).toMatchObject({ fetched: 0, created: 0, complete: true, cursorTs: result.cursorTs });
    expect(slack.calls.at(-1)!.params.oldest).toBe(result.cursorTs);
    expect(await memories.count(acme)).toBe(250);

    slack.say(CH, 3);
    expect(await handler()(makeJobContext('slack-sync', payload(), { tenant: acme }))).toMatchObject({ fetched: 3, created: 3 });
    expect(await memories.count(acme)).toBe(253);
    // Another tenant syncing the same channel gets memories of its own.
    expect(await handler()(makeJobContext('slack-sync', payload(), { tenant: globex }))).toMatchObject({ created: 253 });
    expect(await memories.count(acme)).toBe(253);
  });

  it('a backlog larger than limit is fetched over several runs without a gap or a duplicate', async () => {
    const said = slack.say(CH, 450);
    const runs = [];
    for (let i = 0; i < 10; i++) {
      const r = await handler()(makeJobContext('slack-sync', payload({ limit: 200 }), { tenant: acme }));
      runs.push(r);
      if (r.complete) break;
    }
    expect(runs.map((r) => r.complete)).toEqual([false, false, true]);
    expect(runs.reduce((n, r) => n + r.created, 0)).toBe(450);
    expect(await memories.count(acme)).toBe(450);
    for (const m of [said[0], said[225], said[449]]) expect(await memories.get(slackMemoryId(acme, CH, m.ts))).toBeDefined();
    expect((await states.get(acme, CH))?.cursorTs).toBe(said[449].ts);
    expect((await states.get(acme, CH))?.backfill).toBeUndefined();
  });

  it('a job that fails midway is retried without losing or duplicating a memory', async () => {
    slack.say(CH, 500);
    // The third page fails with a retryable Slack error, after two pages were stored.
    slack.faults.push({ method: 'conversations.history', after: 2, error: 'internal_error' });
    await expect(handler()(makeJobContext('slack-sync', payload(), { tenant: acme, jobId: 'sync-1' }))).rejects.toThrow(/internal_error/);
    expect(await memories.count(acme)).toBe(400);
    const saved = await states.get(acme, CH);
    expect(saved?.cursorTs).toBeUndefined();
    expect(saved?.backfill?.messages).toBe(400);

    // The retry resumes below the last stored page.
    const retry = await handler()(makeJobContext('slack-sync', payload(), { tenant: acme, jobId: 'sync-1', attempt: 2 }));
    expect(retry).toMatchObject({ fetched: 100, created: 100, existing: 0, complete: true });
    expect(await memories.count(acme)).toBe(500);
  });

  it('an HTTP 5xx is retried by the runtime’s HTTP client within the attempt', async () => {
    slack.say(CH, 3);
    slack.faults.push({ method: 'conversations.history', status: 503 });
    expect(await handler()(makeJobContext('slack-sync', payload(), { tenant: acme }))).toMatchObject({ created: 3, complete: true });
    expect(slack.calls.filter((c) => c.method === 'conversations.history')).toHaveLength(2);
  });

  it('posts one summary per completed window, never imports it, and a retry after a lost answer does not post twice', async () => {
    slack.say(CH, 5);
    const first = await handler()(makeJobContext('slack-sync', payload({ postSummary: true }), { tenant: acme }));
    expect(first.summaryTs).toBeDefined();
    expect(slack.posts).toHaveLength(1);
    expect(slack.posts[0]).toMatchObject({ channel: CH, metadata: { event_type: SUMMARY_EVENT_TYPE } });
    expect(slack.posts[0].text).toMatch(/^5 new messages synced into memory\./);

    // Nothing new: no summary. The summary itself is never imported as a memory.
    const quiet = await handler()(makeJobContext('slack-sync', payload({ postSummary: true }), { tenant: acme }));
    expect(quiet).toMatchObject({ created: 0, skipped: 1 });
    expect(slack.posts).toHaveLength(1);
    expect(await memories.count(acme)).toBe(5);

    // Slack posts the summary but the answer is lost: the attempt fails...
    slack.say(CH, 2);
    slack.faults.push({ method: 'chat.postMessage', status: 502, afterEffect: true });
    await expect(handler()(makeJobContext('slack-sync', payload({ postSummary: true }), { tenant: acme, jobId: 'w2' }))).rejects.toThrow();
    expect(slack.posts).toHaveLength(2);
    // ...and its retry finds the summary in the channel instead of posting it again.
    const retry = await handler()(makeJobContext('slack-sync', payload({ postSummary: true }), { tenant: acme, jobId: 'w2', attempt: 2 }));
    expect(slack.posts).toHaveLength(2);
    expect(retry.summaryTs).toBeDefined();
    expect((await states.get(acme, CH))?.summaryDue).toBeUndefined();
    expect(await memories.count(acme)).toBe(7);
  });

  it('without SLACK_TOKEN it fails permanently, saying what to set', async () => {
    const bare = makeBullpen(server.redis, { env: { SLACK_BASE_URL: slack.url } });
    try {
      const err = await createSlackSyncHandler(storesOf(bare))(makeJobContext('slack-sync', payload(), { tenant: acme })).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(PermanentError);
      expect((err as Error).message).toMatch(/SLACK_TOKEN/);
      expect(slack.calls).toHaveLength(0);
    } finally {
      await bare.close();
    }
  });

  it('a rejected token fails permanently with Slack’s code; a job without a tenant is refused', async () => {
    const wrong = makeBullpen(server.redis, { env: { SLACK_TOKEN: 'xoxb-wrong', SLACK_BASE_URL: slack.url } });
    await readyClient(wrong.redis);
    try {
      const err = await createSlackSyncHandler(storesOf(wrong))(makeJobContext('slack-sync', payload(), { tenant: acme })).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(PermanentError);
      expect((err as Error).message).toMatch(/invalid_auth/);
    } finally {
      await wrong.close();
    }
    await expect(handler()(makeJobContext('slack-sync', payload()))).rejects.toBeInstanceOf(PermanentError);
  });
});
