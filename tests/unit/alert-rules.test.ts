import { describe, expect, it } from 'vitest';
import { type AlertChannel, channelSecrets, redact, viewChannel } from '@/lib/alerts/alert-channel';
import { type AlertObservation, evaluateConditions } from '@/lib/alerts/alert-conditions';
import { countOverMinutes } from '@/lib/alerts/alert-observer';
import { type FiringAlert, planRound } from '@/lib/alerts/alert-plan';
import { alertRulesPatchSchema, DEFAULT_ALERT_RULES, patchRules } from '@/lib/alerts/alert-rules';

const none: AlertObservation = { pendingDeadLetters: 0, criticalDeadLetters: [], finished: [], queues: [] };
const MIN = 60_000;

describe('evaluateConditions', () => {
  it('holds the failure rate only past its percentage and its minimum of finished jobs', () => {
    const rules = patchRules(DEFAULT_ALERT_RULES, { failureRate: { percent: 10, minFinished: 20 } });
    const keys = (finished: AlertObservation['finished']) => evaluateConditions(rules, { ...none, finished }).map((c) => c.key);
    expect(keys([{ type: 'a', completed: 9, failed: 10 }])).toEqual([]);
    expect(keys([{ type: 'a', completed: 18, failed: 2 }])).toEqual([]);
    expect(keys([{ type: 'a', completed: 17, failed: 3 }])).toEqual(['failureRate:a']);
  });

  it('tells no workers (0) from unknowable workers (null), and waits past the oldest-waiting limit', () => {
    const obs = {
      ...none,
      queues: [
        { type: 'a', workers: 0, oldestWaitingMs: 301_000 },
        { type: 'b', workers: null, oldestWaitingMs: 300_000 },
      ],
    };
    expect(evaluateConditions(DEFAULT_ALERT_RULES, obs).map((c) => c.key)).toEqual(['noWorkers:a', 'oldestWaiting:a']);
  });

  it('fires the DLQ rule at its threshold and names critical types with their count', () => {
    const rules = patchRules(DEFAULT_ALERT_RULES, { deadLetters: { threshold: 5 } });
    const cs = evaluateConditions(rules, { ...none, pendingDeadLetters: 5, criticalDeadLetters: [{ type: 'pay', count: 2 }] });
    expect(cs.map((c) => [c.key, c.value, c.path])).toEqual([
      ['deadLetters', 5, '/dead-letters?status=pending'],
      ['criticalDeadLetter:pay', 2, '/dead-letters?type=pay'],
    ]);
    expect(evaluateConditions(patchRules(rules, { deadLetters: { enabled: false } }), { ...none, pendingDeadLetters: 9 })).toEqual([]);
  });
});

describe('planRound', () => {
  const cond = { key: 'deadLetters', rule: 'deadLetters' as const, value: 3, summary: 's', path: '/dead-letters' };
  const firing = (over: Partial<FiringAlert> = {}): FiringAlert => ({ ...cond, since: 0, lastSentAt: 0 + 1, ...over });
  const base = { now: 10 * MIN, repeatMs: MIN, acknowledged: new Set<string>(), silences: new Map<string, number>() };

  it('stops repeating an acknowledged alert but still resolves it', () => {
    const acked = { ...base, acknowledged: new Set(['deadLetters']) };
    expect(planRound({ ...acked, firing: [firing()], conditions: [cond] }).events).toEqual([]);
    expect(planRound({ ...acked, firing: [firing()], conditions: [] }).events.map((e) => e.kind)).toEqual(['resolved']);
  });

  it('sends nothing for a silenced alert, and fires it once the silence ends', () => {
    const silenced = { ...base, silences: new Map([['deadLetters', base.now + MIN]]) };
    const muted = planRound({ ...silenced, firing: [], conditions: [cond] });
    expect(muted.events).toEqual([]);
    expect(muted.firing[0]?.lastSentAt).toBe(0);
    const after = planRound({ ...base, now: base.now + 2 * MIN, firing: muted.firing, conditions: [cond] });
    expect(after.events.map((e) => e.kind)).toEqual(['firing']);
  });

  it('resolves an alert that fired and ended inside a silence without a message', () => {
    const plan = planRound({ ...base, firing: [firing({ lastSentAt: 0 })], conditions: [] });
    expect(plan.resolved).toHaveLength(1);
    expect(plan.events).toEqual([]);
  });
});

describe('countOverMinutes', () => {
  it('adds the open minute to the data points inside the window', () => {
    const now = 100 * MIN + 30_000;
    const m = { meta: { count: 50, prevTS: 100 * MIN + 1_000, prevCount: 45 }, data: [7, 3, 100] };
    expect(countOverMinutes(m, 1, now)).toBe(5);
    expect(countOverMinutes(m, 3, now)).toBe(15);
    // Two quiet minutes later, the open minute has slid back by two.
    expect(countOverMinutes(m, 3, now + 2 * MIN)).toBe(5);
    expect(countOverMinutes(m, 3, now + 3 * MIN)).toBe(0);
  });
});

describe('channel views', () => {
  it('shows where a channel points and which secrets are set, never their values', () => {
    const hook: AlertChannel = {
      id: 'h',
      name: 'h',
      enabled: true,
      target: { kind: 'webhook', url: 'https://hooks.example.com/T0/B0/tok3n?key=abc', secret: 'whsec-0123456789abcdef' },
    };
    const view = JSON.stringify(viewChannel(hook));
    expect(view).toContain('hooks.example.com');
    for (const s of ['tok3n', 'abc', 'whsec']) expect(view).not.toContain(s);
    expect(redact('POST https://hooks.example.com/T0/B0/tok3n?key=abc failed', channelSecrets(hook))).toBe('POST *** failed');
    expect(redact('503 at /T0/B0/tok3n?key=abc', channelSecrets(hook))).toBe('503 at ***');
  });
});

describe('patchRules', () => {
  it('changes only the fields a patch names', () => {
    const rules = patchRules(DEFAULT_ALERT_RULES, { failureRate: { percent: 12 }, repeatSeconds: 60 });
    const patch = alertRulesPatchSchema.parse({ failureRate: { enabled: false } });
    expect(patch).toEqual({ failureRate: { enabled: false } });
    expect(patchRules(rules, patch).failureRate).toEqual({ ...DEFAULT_ALERT_RULES.failureRate, percent: 12, enabled: false });
    expect(patchRules(rules, patch).repeatSeconds).toBe(60);
  });

  it('refuses a threshold out of range and a field no rule has', () => {
    expect(alertRulesPatchSchema.safeParse({ deadLetters: { threshold: 0 } }).success).toBe(false);
    expect(alertRulesPatchSchema.safeParse({ deadLetters: { limit: 5 } }).success).toBe(false);
  });
});
