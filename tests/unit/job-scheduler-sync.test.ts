import type { JobSchedulerJson } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { QueueRegistry } from '@/lib/jobs/queues';
import { JobSchedulerSync, scheduledEnvelope, schedulerKey, type SchedulerSpec } from '@/lib/schedules/job-scheduler-sync';

const OPTS = { attempts: 3, backoff: { type: 'exponential', delay: 5_000 }, removeOnComplete: 100 };

/**
 * The queues a JobSchedulerSync talks to, held in memory: BullMQ's scheduler calls and
 * the pending job's state, with every call written down. The BullMQ side itself is
 * tested against Redis in tests/integration/schedules.test.ts.
 */
function fakeQueues(types = ['cleanup', 'decay']) {
  const schedulers = new Map<string, JobSchedulerJson & { type: string }>();
  const states = new Map<string, string>();
  const calls: string[] = [];
  const queue = (type: string) => ({
    getJobScheduler: async (name: string) => {
      const s = schedulers.get(name);
      return s && s.type === type ? s : undefined;
    },
    upsertJobScheduler: async (name: string, repeat: { pattern: string; tz: string }, template: { name: string; data: unknown }) => {
      calls.push(`upsert ${type} ${name}`);
      schedulers.set(name, {
        type,
        key: name,
        name: template.name,
        pattern: repeat.pattern,
        tz: repeat.tz,
        next: 1_000,
        template: { data: template.data, opts: OPTS },
      } as never);
    },
    removeJobScheduler: async (name: string) => {
      calls.push(`remove ${type} ${name}`);
      return schedulers.delete(name);
    },
    getJobSchedulers: async (start: number, end: number, asc: boolean) => {
      calls.push(`list ${type} ${start} ${end} ${asc}`);
      return [...schedulers.values()].filter((s) => s.type === type);
    },
    getJobState: async (id: string) => states.get(id) ?? 'unknown',
  });
  const registry = {
    get: queue,
    jobs: { names: types },
    defaultJobOptions: () => OPTS,
  } as unknown as QueueRegistry;
  return { registry, schedulers, states, calls };
}

const spec: SchedulerSpec = {
  name: 'nightly',
  jobType: 'cleanup',
  pattern: '0 0 3 * * *',
  tz: 'UTC',
  payload: { b: 1, a: [2, 1] },
  appliedAt: 7,
};

describe('JobSchedulerSync (lib/schedules/job-scheduler-sync.ts)', () => {
  it('creates a missing scheduler with the scheduled envelope as its data', async () => {
    const q = fakeQueues();
    expect(await new JobSchedulerSync(q.registry).apply(spec)).toBe('created');
    expect(q.schedulers.get('nightly')).toMatchObject({
      name: 'cleanup',
      pattern: '0 0 3 * * *',
      tz: 'UTC',
      template: { data: { payload: spec.payload, requestId: 'schedule:nightly', dispatchedAt: 7, schedule: 'nightly' } },
    });
    expect(scheduledEnvelope(spec)).toEqual({ payload: spec.payload, requestId: 'schedule:nightly', dispatchedAt: 7, schedule: 'nightly' });
  });

  it('leaves a scheduler alone only when it matches in full and its pending job will still run', async () => {
    const q = fakeQueues();
    const s = new JobSchedulerSync(q.registry);
    await s.apply(spec);
    for (const state of ['delayed', 'waiting', 'prioritized', 'active', 'waiting-children']) {
      q.states.set('repeat:nightly:1000', state);
      expect(await s.apply({ ...spec, appliedAt: 8 }), state).toBe('unchanged');
    }
    // The payload's key order does not matter, its values do.
    q.states.set('repeat:nightly:1000', 'delayed');
    expect(await s.apply({ ...spec, payload: { a: [2, 1], b: 1 } })).toBe('unchanged');
    for (const state of ['completed', 'failed', 'unknown']) {
      q.states.set('repeat:nightly:1000', state);
      expect(await s.apply(spec), state).toBe('updated');
    }
  });

  it('updates a scheduler that differs in any field the schedule sets', async () => {
    const q = fakeQueues();
    const s = new JobSchedulerSync(q.registry);
    await s.apply(spec);
    q.states.set('repeat:nightly:1000', 'delayed');
    const current = () =>
      q.schedulers.get('nightly') as unknown as Record<string, unknown> & { template: { data: Record<string, unknown>; opts: unknown } };
    const cases: Array<[string, () => void]> = [
      ['pattern', () => (current().pattern = '0 0 4 * * *')],
      ['tz', () => (current().tz = 'Europe/Paris')],
      ['job name', () => (current().name = 'decay')],
      ['every', () => (current().every = 60_000)],
      ['schedule', () => (current().template.data.schedule = 'other')],
      ['payload', () => (current().template.data.payload = { b: 2, a: [2, 1] })],
      ['array order', () => (current().template.data.payload = { b: 1, a: [1, 2] })],
      ['job options', () => (current().template.opts = { ...OPTS, attempts: 5 })],
      ['no next run', () => (current().next = undefined)],
    ];
    for (const [what, change] of cases) {
      change();
      const before = q.calls.length;
      expect(await s.apply(spec), what).toBe('updated');
      expect(q.calls.slice(before), what).toEqual(['upsert cleanup nightly']);
    }
    // Without template options, BullMQ's {} is compared with the type's defaults.
    current().template.opts = undefined;
    expect(await s.apply(spec)).toBe('updated');
  });

  it('reads a scheduler as plain data, and removes one', async () => {
    const q = fakeQueues();
    const s = new JobSchedulerSync(q.registry);
    expect(await s.read('nightly', 'cleanup')).toBeUndefined();
    await s.apply(spec);
    expect(await s.read('nightly', 'cleanup')).toEqual({
      pattern: '0 0 3 * * *',
      tz: 'UTC',
      next: 1_000,
      envelope: scheduledEnvelope(spec),
    });
    (q.schedulers.get('nightly') as { next?: number }).next = undefined;
    expect((await s.read('nightly', 'cleanup'))?.next).toBeNull();
    expect(await s.remove('nightly', 'cleanup')).toBe(true);
    expect(await s.remove('nightly', 'cleanup')).toBe(false);
  });

  it('sweeps only its own schedulers that are not kept, in every queue, a page of 1,000 each', async () => {
    const q = fakeQueues();
    const s = new JobSchedulerSync(q.registry);
    await s.apply(spec);
    await s.apply({ ...spec, name: 'stale', jobType: 'decay' });
    await s.apply({ ...spec, name: 'kept', jobType: 'decay' });
    // Someone else's scheduler: its template names no schedule of ours.
    q.schedulers.set('foreign', { type: 'decay', key: 'foreign', name: 'decay', template: { data: { x: 1 } } } as never);
    const removed = await s.sweep(new Set([schedulerKey('cleanup', 'nightly'), schedulerKey('decay', 'kept')]));
    expect(removed).toEqual([{ name: 'stale', jobType: 'decay' }]);
    expect([...q.schedulers.keys()].sort()).toEqual(['foreign', 'kept', 'nightly']);
    expect(q.calls.filter((c) => c.startsWith('list'))).toEqual(['list cleanup 0 999 true', 'list decay 0 999 true']);
    expect(schedulerKey('decay', 'kept')).toBe('decay/kept');
  });

  it('reports no removal when BullMQ had already dropped the scheduler', async () => {
    const q = fakeQueues();
    const s = new JobSchedulerSync(q.registry);
    await s.apply({ ...spec, name: 'stale' });
    const registry = q.registry as unknown as { get: (t: string) => Record<string, unknown> };
    const get = registry.get;
    registry.get = (t: string) => ({ ...get(t), removeJobScheduler: async () => false });
    expect(await s.sweep(new Set())).toEqual([]);
  });
});
