import { describe, expect, it } from 'vitest';
import { Dispatcher, MAX_DISPATCH_BULK } from '@/lib/jobs/dispatcher';
import { jobIdForKey } from '@/lib/jobs/idempotency-key';
import type { QueueRegistry } from '@/lib/jobs/queues';
import { TEST_CATALOG } from '../helpers/test-jobs';
import { refusal } from '../helpers/refusal';

/** A registry that fails the test if anything reaches a queue. */
const untouchable = {
  jobs: TEST_CATALOG,
  get: () => {
    throw new Error('a refused dispatch reached Redis');
  },
} as unknown as QueueRegistry;
const dispatcher = new Dispatcher(untouchable, new Set(['notify']));

describe('dispatcher refusals change nothing', () => {
  it('refuses an unknown type', async () => {
    const e = await refusal(dispatcher.dispatch('nope' as never, {} as never));
    expect(e.code).toBe('UNKNOWN_JOB_TYPE');
  });

  it('refuses a type without a handler', async () => {
    const e = await refusal(dispatcher.dispatch('sync', { channelId: 'C1' }));
    expect(e).toMatchObject({ code: 'NO_HANDLER', status: 400 });
    expect(e.message).toMatch(/has no handler/);
  });

  it('refuses a bad payload with the schema’s message', async () => {
    const e = await refusal(dispatcher.dispatch('notify', { webhookId: '', event: 'x', payload: {} }));
    expect(e.code).toBe('VALIDATION');
    expect(e.message).toMatch(/webhookId/);
  });

  it('refuses bad options: tenant, priority, unknown keys', async () => {
    const data = { webhookId: 'w', event: 'e', payload: {} };
    expect((await refusal(dispatcher.dispatch('notify', data, { tenant: { orgId: 'a b' } }))).code).toBe('VALIDATION');
    expect((await refusal(dispatcher.dispatch('notify', data, { priority: 'URGENT' as never }))).message).toMatch(/priority/);
    expect((await refusal(dispatcher.dispatch('notify', data, { bogus: 1 } as never))).code).toBe('VALIDATION');
  });

  it('validates a whole bulk before sending any of it', async () => {
    const good = { type: 'notify' as const, data: { webhookId: 'w', event: 'e', payload: {} } };
    const e = await refusal(dispatcher.dispatchBulk([good, { ...good, data: { ...good.data, event: '' } }]));
    expect(e.message).toMatch(/^item 1:/);
  });
});

/**
 * A registry whose queues behave like BullMQ's as the dispatcher uses them: `add` keeps
 * the first job of a given id and returns that job's id for a second add with it.
 */
function memoryRegistry(opts: { noIds?: boolean } = {}) {
  const added: Array<{ queue: string; name: string; data: any; opts: any }> = [];
  const stored = new Map<string, { data: unknown }>();
  let next = 1;
  const queue = (name: string) => ({
    add: async (jobName: string, data: unknown, o: { jobId?: string } = {}) => {
      added.push({ queue: name, name: jobName, data, opts: o });
      const id = o.jobId ?? String(next++);
      if (!stored.has(`${name}/${id}`)) stored.set(`${name}/${id}`, { data });
      return { id: opts.noIds ? undefined : id };
    },
    addBulk: async (jobs: Array<{ name: string; data: unknown; opts: { jobId?: string } }>) => {
      const out = [];
      for (const j of jobs) out.push(await queue(name).add(j.name, j.data, j.opts));
      return out;
    },
    getJob: async (id: string) => stored.get(`${name}/${id}`),
  });
  const registry = { jobs: TEST_CATALOG, get: (type: string) => queue(type) } as unknown as QueueRegistry;
  return { registry, added };
}

const webhook = { webhookId: 'w1', event: 'order.paid', payload: { n: 1 } };

describe('dispatcher: what it enqueues', () => {
  it('says which types it handles: in the table and given a handler', () => {
    const d = new Dispatcher(memoryRegistry().registry, new Set(['notify', 'not-a-type']));
    expect(d.handles('notify')).toBe(true);
    expect(d.handles('sync')).toBe(false);
    expect(d.handles('not-a-type')).toBe(false);
  });

  it('enqueues the parsed payload in an envelope, on the type’s queue under the type’s name, with no options by default', async () => {
    const { registry, added } = memoryRegistry();
    const before = Date.now();
    const r = await new Dispatcher(registry, new Set(['sync'])).dispatch('sync', { channelId: 'C1' });
    expect(r).toEqual({ jobId: '1', type: 'sync', deduplicated: false });
    expect(added).toHaveLength(1);
    const [a] = added;
    expect(a).toMatchObject({ queue: 'sync', name: 'sync', opts: {} });
    // Defaults filled in by the schema travel with the job.
    expect(a.data.payload).toEqual({ channelId: 'C1', limit: 200 });
    expect(a.data.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.data.dispatchedAt).toBeGreaterThanOrEqual(before);
    expect(a.data.dispatchedAt).toBeLessThanOrEqual(Date.now());
    expect(a.data.tenant).toBeUndefined();
    expect(a.data.idempotencyKey).toBeUndefined();
  });

  it('maps each option to BullMQ’s: priority level, delay, attempts, and a job id from the idempotency key', async () => {
    const { registry, added } = memoryRegistry();
    const d = new Dispatcher(registry, new Set(['notify']));
    const tenant = { orgId: 'acme', workspaceId: 'ops' };
    await d.dispatch('notify', webhook, {
      tenant,
      priority: 'HIGH',
      delayMs: 1_500,
      attempts: 7,
      idempotencyKey: 'k-1',
      requestId: 'req-1',
    });
    expect(added[0].opts).toEqual({ priority: 3, delay: 1_500, attempts: 7, jobId: jobIdForKey('idem', 'k-1') });
    expect(added[0].data).toMatchObject({ tenant, idempotencyKey: 'k-1', requestId: 'req-1' });
    await d.dispatch('notify', webhook, { priority: 'CRITICAL', delayMs: 0 });
    expect(added[1].opts).toEqual({ priority: 1 });
  });

  it('a second dispatch with the same idempotency key keeps the first job and says it was a duplicate', async () => {
    const { registry } = memoryRegistry();
    const d = new Dispatcher(registry, new Set(['notify']));
    const first = await d.dispatch('notify', webhook, { idempotencyKey: 'same' });
    const second = await d.dispatch('notify', { ...webhook, event: 'other' }, { idempotencyKey: 'same' });
    expect(first.deduplicated).toBe(false);
    expect(second).toEqual({ jobId: first.jobId, type: 'notify', deduplicated: true });
  });

  it('falls back to the id it chose when BullMQ returns none, and fails loudly when there is neither', async () => {
    const { registry } = memoryRegistry({ noIds: true });
    const d = new Dispatcher(registry, new Set(['notify']));
    const r = await d.dispatch('notify', webhook, { idempotencyKey: 'k' });
    expect(r.jobId).toBe(jobIdForKey('idem', 'k'));
    expect(r.deduplicated).toBe(false);
    await expect(d.dispatch('notify', webhook)).rejects.toThrow('BullMQ returned no id for a notify job');
  });

  it('a job with a key that is gone when read back (already removed) is not ours: reported as a duplicate, the dispatch still succeeds', async () => {
    const { registry } = memoryRegistry();
    const gone = {
      ...registry,
      get: (type: string) => ({ ...registry.get(type), getJob: async () => undefined }),
    } as unknown as QueueRegistry;
    const r = await new Dispatcher(gone, new Set(['notify'])).dispatch('notify', webhook, { idempotencyKey: 'k-gone' });
    expect(r).toEqual({ jobId: jobIdForKey('idem', 'k-gone'), type: 'notify', deduplicated: true });
  });

  it('bulk: one result per item in the items’ order, across queues, duplicates named', async () => {
    const { registry, added } = memoryRegistry();
    const d = new Dispatcher(registry, new Set(['notify', 'sync']));
    await d.dispatch('notify', webhook, { idempotencyKey: 'dup' });
    const results = await d.dispatchBulk([
      { type: 'sync', data: { channelId: 'C1' } },
      { type: 'notify', data: webhook, opts: { idempotencyKey: 'dup' } },
      { type: 'sync', data: { channelId: 'C2' }, opts: { priority: 'LOW' } },
      { type: 'notify', data: webhook },
    ]);
    expect(results.map((r) => [r.type, r.deduplicated])).toEqual([
      ['sync', false],
      ['notify', true],
      ['sync', false],
      ['notify', false],
    ]);
    expect(results[1].jobId).toBe(jobIdForKey('idem', 'dup'));
    expect(new Set(results.map((r) => r.jobId)).size).toBe(4);
    const slack = added.filter((a) => a.queue === 'sync');
    expect(slack.map((a) => [a.name, a.data.payload.channelId, a.opts])).toEqual([
      ['sync', 'C1', {}],
      ['sync', 'C2', { priority: 10 }],
    ]);
  });

  it('bulk: takes up to the limit and refuses one more before validating anything', async () => {
    const { registry } = memoryRegistry();
    const d = new Dispatcher(registry, new Set(['notify']));
    const item = { type: 'notify' as const, data: webhook };
    expect(MAX_DISPATCH_BULK).toBe(1_000);
    expect(await d.dispatchBulk(Array.from({ length: MAX_DISPATCH_BULK }, () => item))).toHaveLength(MAX_DISPATCH_BULK);
    const e = await refusal(d.dispatchBulk(Array.from({ length: MAX_DISPATCH_BULK + 1 }, () => item)));
    expect(e.code).toBe('VALIDATION');
    expect(e.message).toBe('A bulk dispatch holds at most 1000 jobs, got 1001');
  });

  it('bulk: a refused item keeps its code and details, its message names its index', async () => {
    const d = new Dispatcher(untouchable, new Set(['notify']));
    const e = await refusal(
      d.dispatchBulk([
        { type: 'notify', data: webhook },
        { type: 'sync', data: { channelId: 'C1' } },
      ]),
    );
    expect(e.code).toBe('NO_HANDLER');
    expect(e.message).toBe('item 1: Job type "sync" has no handler in this build; it cannot be dispatched');
    expect(e.details).toEqual({ type: 'sync' });
  });

  it('bulk: an error that is not a refusal passes through as it is', async () => {
    const boom = new Error('catalog broke');
    const registry = {
      jobs: {
        get: () => ({
          schema: {
            safeParse: () => {
              throw boom;
            },
          },
        }),
      },
    } as unknown as QueueRegistry;
    const d = new Dispatcher(registry, new Set(['notify']));
    await expect(d.dispatchBulk([{ type: 'notify', data: webhook }])).rejects.toBe(boom);
  });

  it('refusals carry the schema’s issues and a message naming the type', async () => {
    const bad = await refusal(dispatcher.dispatch('notify', { ...webhook, webhookId: '' }));
    expect(bad.message).toMatch(/^Invalid notify payload: /);
    expect((bad.details?.issues as unknown[]).length).toBeGreaterThan(0);
    const badOpts = await refusal(dispatcher.dispatch('notify', webhook, { delayMs: -1 }));
    expect(badOpts.message).toMatch(/^Invalid dispatch options: /);
    expect((badOpts.details?.issues as unknown[]).length).toBeGreaterThan(0);
    const e = await refusal(dispatcher.dispatch('sync', { channelId: 'C1' }));
    expect(e.message).toBe('Job type "sync" has no handler in this build; it cannot be dispatched');
  });

  it('option bounds: a delay of up to a year, 1 to 100 attempts, keys and request ids of bounded length', async () => {
    const { registry } = memoryRegistry();
    const d = new Dispatcher(registry, new Set(['notify']));
    const year = 365 * 24 * 3_600_000;
    await expect(
      d.dispatch('notify', webhook, {
        delayMs: year,
        attempts: 100,
        idempotencyKey: 'k'.repeat(512),
        requestId: 'r'.repeat(128),
      }),
    ).resolves.toBeDefined();
    await expect(d.dispatch('notify', webhook, { attempts: 1, idempotencyKey: 'x', requestId: 'y' })).resolves.toBeDefined();
    for (const bad of [
      { delayMs: year + 1 },
      { delayMs: 1.5 },
      { attempts: 0 },
      { attempts: 101 },
      { idempotencyKey: '' },
      { idempotencyKey: 'k'.repeat(513) },
      { requestId: '' },
      { requestId: 'r'.repeat(129) },
    ]) {
      expect((await refusal(d.dispatch('notify', webhook, bad))).code, JSON.stringify(bad).slice(0, 40)).toBe('VALIDATION');
    }
  });
});
