import { describe, expect, it } from 'vitest';
import { LiveHub, type LiveHubOptions, type StreamSession, type StreamSink } from '@/dashboard/live/live-hub';
import { isAppError } from '@/lib/errors/app-error';
import type { RedisState } from '@/lib/health/redis-watch';

const flush = () => new Promise((r) => setImmediate(r));
const decoder = new TextDecoder();

/** A tab's end of a stream: the events it received, parsed. */
class Tab implements StreamSink {
  events: Array<{ event: string; data: string }> = [];
  ended = false;
  /** What `write` answers: false plays a client that stopped reading. */
  reading = true;
  write(chunk: Uint8Array): boolean {
    const m = /^event: (.+)\ndata: (.*)\n\n$/.exec(decoder.decode(chunk));
    if (!m) throw new Error(`not one event: ${decoder.decode(chunk)}`);
    this.events.push({ event: m[1], data: m[2] });
    return this.reading;
  }
  end(): void {
    this.ended = true;
  }
  named(event: string) {
    return this.events.filter((e) => e.event === event).map((e) => JSON.parse(e.data));
  }
  clear() {
    this.events = [];
  }
}

function session(username: string, sid = `sid-${username}`): StreamSession {
  return { sid, username, sessionEpoch: 1, role: 'viewer' };
}

/** A hub on a hand-moved clock whose reads count and answer `values[subject]`. */
function makeHub(opts: Partial<LiveHubOptions> = {}) {
  let t = 1_000;
  const reads: string[] = [];
  const values: Record<string, unknown> = {};
  const closed = new Set<string>();
  let redis: RedisState = { reachable: true, since: 0, checkedAt: 0 };
  const checks: string[][] = [];
  const hub = new LiveHub({
    read: async (s) => {
      reads.push(s);
      if (values[s] instanceof Error) throw values[s];
      return values[s] ?? null;
    },
    sessionsOpen: async (sessions) => {
      checks.push(sessions.map((s) => s.sid));
      return sessions.map((s) => !closed.has(s.sid));
    },
    redisState: () => redis,
    pollEveryMs: 0,
    now: () => t,
    ...opts,
  });
  return {
    hub,
    reads,
    values,
    closed,
    checks,
    setRedis: (r: RedisState) => {
      redis = r;
    },
    advance: async (ms: number) => {
      t += ms;
      hub.poll();
      await flush();
    },
  };
}

function refusal(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (isAppError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('not refused');
}

describe('live hub: one reader for every tab', () => {
  it('reads each distinct subject once per tick whatever the number of tabs, and sends each tab only its subjects', async () => {
    const h = makeHub();
    const tabs = Array.from({ length: 20 }, () => new Tab());
    for (const [i, tab] of tabs.entries()) h.hub.open(session(`user-${i}`), ['/api/live/overview'], tab);
    const queueTab = new Tab();
    h.hub.open(session('ann'), ['/api/live/overview', '/api/live/queues/a?state=failed'], queueTab);
    await flush();
    // Opening read each new subject once, not once per tab.
    expect(h.reads.sort()).toEqual(['/api/live/overview', '/api/live/queues/a?state=failed']);

    h.reads.length = 0;
    h.values['/api/live/overview'] = { waiting: 3 };
    h.values['/api/live/queues/a?state=failed'] = { counts: { failed: 1 } };
    await h.advance(1_000);
    expect(h.reads.sort()).toEqual(['/api/live/overview', '/api/live/queues/a?state=failed']);
    for (const tab of tabs) {
      expect(tab.named('data').at(-1)).toEqual({ s: '/api/live/overview', v: { waiting: 3 } });
      expect(tab.named('data').some((d) => d.s !== '/api/live/overview')).toBe(false);
    }
    expect(
      queueTab
        .named('data')
        .slice(-2)
        .map((d) => d.s)
        .sort(),
    ).toEqual(['/api/live/overview', '/api/live/queues/a?state=failed']);
    expect(h.hub.subjectCount).toBe(2);
  });

  it('sends a value only when it changed, a heartbeat on a tick that sent nothing else, and the last value to a tab that opens later', async () => {
    const h = makeHub();
    h.values['/api/live/workers'] = { processes: 1 };
    const first = new Tab();
    h.hub.open(session('ann'), ['/api/live/workers'], first);
    await flush();
    expect(first.named('data')).toEqual([{ s: '/api/live/workers', v: { processes: 1 } }]);
    first.clear();
    await h.advance(1_000);
    await h.advance(1_000);
    expect(first.named('data')).toEqual([]);
    // Within two ticks of silence a tab hears a heartbeat (what its watchdog waits for).
    expect(first.named('heartbeat')).toHaveLength(1);

    const later = new Tab();
    h.hub.open(session('bob'), ['/api/live/workers'], later);
    expect(later.named('data')).toEqual([{ s: '/api/live/workers', v: { processes: 1 } }]);

    h.values['/api/live/workers'] = { processes: 2 };
    first.clear();
    await h.advance(1_000);
    expect(first.named('data')).toEqual([{ s: '/api/live/workers', v: { processes: 2 } }]);
    // A tab that heard something within the tick needs no heartbeat.
    first.clear();
    await h.advance(500);
    await h.advance(500);
    expect(first.named('heartbeat')).toEqual([]);
  });

  it("tells a subject's failure in words, and a Redis outage to every tab without reading", async () => {
    const h = makeHub();
    const { AppError } = await import('@/lib/errors/app-error');
    h.values['/api/live/queues/a/jobs/7'] = new AppError('NOT_FOUND', 'No job 7 in a');
    const tab = new Tab();
    const other = new Tab();
    h.hub.open(session('ann'), ['/api/live/queues/a/jobs/7'], tab);
    h.hub.open(session('bob'), ['/api/live/overview'], other);
    await flush();
    expect(tab.named('failure')).toEqual([{ s: '/api/live/queues/a/jobs/7', code: 'NOT_FOUND', message: 'No job 7 in a' }]);
    expect(tab.named('redis')[0]).toMatchObject({ reachable: true });

    h.reads.length = 0;
    h.setRedis({ reachable: false, since: 5_000, reason: 'timeout', checkedAt: 5_000 });
    await h.advance(250);
    for (const t of [tab, other]) expect(t.named('redis').at(-1)).toMatchObject({ reachable: false, since: 5_000 });
    await h.advance(1_000);
    expect(h.reads).toEqual([]);
    // Told once, not at every look.
    expect(other.named('redis')).toHaveLength(2);
  });

  it('closes the streams of a session that was signed out within the next check, and keeps them while Redis cannot answer', async () => {
    const h = makeHub();
    const ann = [new Tab(), new Tab()];
    const bob = new Tab();
    for (const t of ann) h.hub.open(session('ann'), ['/api/live/overview'], t);
    h.hub.open(session('bob'), ['/api/live/overview'], bob);
    await h.advance(250);
    // Every open session in one check (one round trip), each once however many tabs it has.
    expect(h.checks.map((c) => [...c].sort())).toEqual([['sid-ann', 'sid-bob']]);
    expect(ann.some((t) => t.ended)).toBe(false);

    h.closed.add('sid-ann');
    await h.advance(250);
    for (const t of ann) {
      expect(t.ended).toBe(true);
      expect(t.named('closed')).toEqual([{ reason: 'signed-out' }]);
    }
    expect(bob.ended).toBe(false);
    expect(h.hub.size).toBe(1);

    // A check that fails (Redis away) is no sign-out.
    const failing = makeHub({ sessionsOpen: () => Promise.reject(new Error('ETIMEDOUT')) });
    const tab = new Tab();
    failing.hub.open(session('cy'), ['/api/live/overview'], tab);
    await failing.advance(250);
    expect(tab.ended).toBe(false);
  });

  it('refuses streams and subjects past its bounds, with the status that says why', () => {
    const h = makeHub({ maxStreams: 3, maxStreamsPerUser: 2, maxSubjectsPerStream: 2, maxSubjects: 3 });
    expect(refusal(() => h.hub.open(session('ann'), ['/a', '/b', '/c'], new Tab()))).toMatchObject({ code: 'VALIDATION' });
    expect(refusal(() => h.hub.open(session('ann'), [], new Tab()))).toMatchObject({ code: 'VALIDATION' });
    h.hub.open(session('ann'), ['/a'], new Tab());
    h.hub.open(session('ann'), ['/a', '/b'], new Tab());
    expect(refusal(() => h.hub.open(session('ann', 'other-sid'), ['/a'], new Tab()))).toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringContaining('2 live streams per user'),
    });
    expect(refusal(() => h.hub.open(session('bob'), ['/c', '/d'], new Tab()))).toMatchObject({ code: 'UNAVAILABLE' });
    h.hub.open(session('bob'), ['/c'], new Tab());
    expect(refusal(() => h.hub.open(session('cy'), ['/a'], new Tab()))).toMatchObject({ code: 'UNAVAILABLE' });
    expect(h.hub.size).toBe(3);
  });

  it('drops a tab that stops reading, and a subject nobody streams is read no more', async () => {
    const h = makeHub();
    const slow = new Tab();
    const handle = h.hub.open(session('ann'), ['/api/live/overview', '/api/live/health'], slow);
    const other = new Tab();
    const otherHandle = h.hub.open(session('bob'), ['/api/live/health'], other);
    await flush();
    slow.reading = false;
    h.values['/api/live/overview'] = 1;
    await h.advance(1_000);
    expect(slow.ended).toBe(true);
    expect(h.hub.subjectCount).toBe(1);
    handle.close();
    otherHandle.close();
    expect(h.hub.size).toBe(0);
    h.reads.length = 0;
    await h.advance(1_000);
    expect(h.reads).toEqual([]);
  });
});
