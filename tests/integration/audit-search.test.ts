import { describe, expect, it } from 'vitest';
import { readAuditPage } from '@/dashboard/audit/audit-page';
import { useTestRedis } from '../helpers/use-test-redis';

const T0 = Date.UTC(2026, 10, 1);
const MIN = 60_000;

describe('the audit log filtered by actor, action, target and time', () => {
  const server = useTestRedis();

  /** 60 entries one minute apart: alice replays, bob discards, sign-in failures every third minute. */
  async function seeded() {
    const bullpen = await server.readyBullpen();
    for (let i = 0; i < 60; i++) {
      const kind = i % 3;
      await bullpen.audit.append({
        at: T0 + i * MIN,
        actor: kind === 0 ? 'anonymous' : kind === 1 ? 'alice' : 'cli:bob',
        action: kind === 0 ? 'auth.sign-in-failed' : kind === 1 ? 'dlq.replay' : 'dlq.discard',
        target: kind === 0 ? { kind: 'user', id: `guess${i}` } : { kind: 'dead-letter', id: `webhook-dispatch:${i}` },
      });
    }
    return bullpen;
  }

  it('finds only the matching entries, newest first, and pages through all of them exactly once', async () => {
    const bullpen = await seeded();
    const seen: string[] = [];
    let before: string | undefined;
    for (let n = 0; n < 10; n++) {
      const page = await readAuditPage(bullpen, { action: 'auth.sign-in-failed', before }, { limit: 7 });
      expect(page.entries.every((e) => e.action === 'auth.sign-in-failed')).toBe(true);
      seen.push(...page.entries.map((e) => e.target.id));
      if (!page.next) break;
      before = page.next;
    }
    expect(seen).toEqual(Array.from({ length: 20 }, (_, k) => `guess${57 - 3 * k}`));
  });

  it('combines actor, action group and target', async () => {
    const bullpen = await seeded();
    const group = await readAuditPage(bullpen, { action: 'dlq' }, { limit: 100 });
    expect(group.entries).toHaveLength(40);
    const alice = await readAuditPage(bullpen, { actor: 'ALICE', action: 'dlq', target: 'dispatch:4' }, { limit: 100 });
    // alice acts at i ≡ 1 (mod 3); ids containing "dispatch:4" are 4 and 40–49.
    expect(alice.entries.map((e) => e.target.id)).toEqual([
      'webhook-dispatch:49',
      'webhook-dispatch:46',
      'webhook-dispatch:43',
      'webhook-dispatch:40',
      'webhook-dispatch:4',
    ]);
    expect(alice.exhausted).toBe(true);
    expect(alice.filtered).toBe(true);
  });

  it('reads a time window from the stream ids and nothing outside it', async () => {
    const bullpen = await server.readyBullpen();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await bullpen.audit.append({ actor: 'alice', action: 'queue.pause', target: { kind: 'queue', id: `q${i}` } }));
      await new Promise((r) => setTimeout(r, 15));
    }
    const times = ids.map((id) => Number(id.split('-')[0]));
    const page = await readAuditPage(bullpen, { from: times[1], to: times[3] });
    expect(page.entries.map((e) => e.target.id)).toEqual(['q3', 'q2', 'q1']);
    // A cursor newer than `to` is held to the window.
    const held = await readAuditPage(bullpen, { to: times[2], before: ids[4] });
    expect(held.entries.map((e) => e.target.id)).toEqual(['q2', 'q1', 'q0']);
  });

  it('stops a rare match at the scan budget and goes on from where it stopped', async () => {
    const bullpen = await seeded();
    const first = await readAuditPage(bullpen, { target: 'guess0' }, { limit: 10, maxScan: 25 });
    expect(first.entries).toEqual([]);
    expect(first.scanned).toBe(25);
    expect(first.exhausted).toBe(false);
    expect(first.scannedBackTo).toBeGreaterThan(0);
    let before = first.next;
    let found: string[] = [];
    for (let n = 0; n < 5 && before; n++) {
      const page = await readAuditPage(bullpen, { target: 'guess0', before }, { limit: 10, maxScan: 25 });
      found = found.concat(page.entries.map((e) => e.target.id));
      before = page.next;
      if (page.exhausted) break;
    }
    expect(found).toEqual(['guess0']);
  });
});
