import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SHIPPED_JOBS } from '@/jobs';
import { JobCatalog } from '@/lib/jobs/job-catalog';
import { defineJob } from '@/lib/jobs/job-definition';
import { PRIORITY } from '@/lib/jobs/priority';
import { QueueRegistry } from '@/lib/jobs/queues';
import { Keyspace } from '@/lib/redis/keys';
import { JOB_TYPE_NAMES, jobType } from '../../helpers/shipped-jobs';

const minimal = {
  group: 'g',
  description: 'd',
  schema: z.object({}),
  example: {},
  attempts: 1,
  backoff: { type: 'fixed', delayMs: 1 },
  timeoutMs: 1,
} as const;

describe('the shipped job table', () => {
  it('holds the job types of the requirements in their groups', () => {
    // The requirements' 18 types (docs/requirements.md#background-workers); the table may hold more.
    const required = {
      memory: ['memory-consolidation', 'memory-cleanup', 'memory-importance-decay'],
      embedding: ['embedding-batch', 'embedding-reindex'],
      learning: ['trajectory-process', 'pattern-training', 'ewc-consolidation'],
      session: ['session-cleanup', 'session-archive'],
      index: ['index-optimization', 'index-rebalance'],
      integration: ['webhook-dispatch', 'slack-sync'],
      maintenance: ['quota-check', 'audit-export', 'data-export', 'data-deletion'],
    };
    for (const [group, types] of Object.entries(required)) {
      for (const t of types) expect(SHIPPED_JOBS.find((d) => d.name === t)?.group, t).toBe(group);
    }
  });

  it('carries the required defaults', () => {
    expect(jobType('memory-consolidation')).toMatchObject({
      attempts: 3,
      backoff: { type: 'exponential', delayMs: 5_000 },
      timeoutMs: 300_000,
    });
    expect(jobType('embedding-batch')).toMatchObject({ attempts: 5, backoff: { type: 'exponential', delayMs: 2_000 }, timeoutMs: 60_000 });
    expect(jobType('webhook-dispatch')).toMatchObject({
      attempts: 10,
      backoff: { type: 'exponential', delayMs: 1_000 },
      timeoutMs: 30_000,
    });
    expect(jobType('pattern-training')).toMatchObject({ attempts: 2, backoff: { type: 'fixed', delayMs: 60_000 }, timeoutMs: 3_600_000 });
    expect(jobType('session-cleanup')).toMatchObject({
      attempts: 3,
      backoff: { type: 'exponential', delayMs: 10_000 },
      timeoutMs: 120_000,
    });
  });

  it('marks the required critical types', () => {
    const critical = JOB_TYPE_NAMES.filter((t) => jobType(t).critical).sort();
    expect(critical).toEqual(['audit-export', 'data-deletion', 'webhook-dispatch']);
  });

  it('declares a handler for every type', () => {
    expect([...new JobCatalog(SHIPPED_JOBS).handled].sort()).toEqual([...JOB_TYPE_NAMES].sort());
  });

  it('turns defaults into BullMQ options: full jitter, BullMQ priority order, retention', () => {
    const queues = new QueueRegistry({} as never, new Keyspace('t'), new JobCatalog(SHIPPED_JOBS));
    expect(queues.defaultJobOptions('webhook-dispatch')).toEqual({
      attempts: 10,
      backoff: { type: 'full-jitter', delay: 1_000 },
      priority: PRIORITY.HIGH,
      removeOnComplete: { count: 100 },
      removeOnFail: { count: 1_000 },
    });
    expect(queues.defaultJobOptions('pattern-training').backoff).toEqual({ type: 'fixed', delay: 60_000 });
    expect(queues.defaultJobOptions('data-deletion').priority).toBe(1);
    expect(() => queues.defaultJobOptions('no-such-type')).toThrow(/Unknown job type "no-such-type"/);
  });
});

describe('JobCatalog', () => {
  it('fills in the optional defaults: MEDIUM priority, concurrency 1, not critical', () => {
    const c = new JobCatalog([defineJob({ name: 'a', ...minimal })]);
    expect(c.get('a')).toMatchObject({ priority: 'MEDIUM', concurrency: 1, critical: false });
    expect(c.handled.has('a')).toBe(false);
  });

  it('counts a type as handled only when it declares a handler', () => {
    const c = new JobCatalog([defineJob({ name: 'a', ...minimal, handler: () => async () => 1 }), defineJob({ name: 'b', ...minimal })]);
    expect([...c.handled]).toEqual(['a']);
    expect(c.names).toEqual(['a', 'b']);
  });

  it('refuses names that would break a queue key, and a name declared twice', () => {
    for (const name of ['', 'a:b', 'a b', '../x', '-lead', 'x'.repeat(65)]) {
      expect(() => new JobCatalog([defineJob({ name, ...minimal })]), name).toThrow(/Job type name/);
    }
    expect(() => new JobCatalog([defineJob({ name: 'a', ...minimal }), defineJob({ name: 'a', ...minimal })])).toThrow(/declared twice/);
  });

  it('refuses impossible defaults', () => {
    expect(() => new JobCatalog([defineJob({ name: 'a', ...minimal, attempts: 0 })])).toThrow(/attempts/);
    expect(() => new JobCatalog([defineJob({ name: 'a', ...minimal, timeoutMs: 0 })])).toThrow(/timeoutMs/);
    expect(() => new JobCatalog([defineJob({ name: 'a', ...minimal, concurrency: 1.5 })])).toThrow(/concurrency/);
    const counted = { ...minimal, schema: z.object({ n: z.number() }) };
    expect(() => new JobCatalog([defineJob({ name: 'a', ...counted, example: { n: 'one' } as never })])).toThrow(
      /Job type "a": its example does not fit its schema/,
    );
  });

  it('answers UNKNOWN_JOB_TYPE for a type the table lacks', () => {
    const c = new JobCatalog([defineJob({ name: 'a', ...minimal })]);
    expect(c.has('b')).toBe(false);
    expect(() => c.get('b')).toThrow(expect.objectContaining({ code: 'UNKNOWN_JOB_TYPE' }));
    expect(c.lockedFieldsOf('b')).toEqual(['orgId', 'workspaceId']);
  });

  it('keeps a valid tenant or resource field locked, and lets an edit fix one the original got wrong', () => {
    const c = new JobCatalog([
      defineJob({
        name: 'a',
        ...minimal,
        schema: z.object({ orgId: z.string(), namespace: z.string(), n: z.number() }),
        example: { orgId: 'acme', namespace: 'notes', n: 1 },
        resourceFields: ['namespace'],
      }),
    ]);
    const valid = { orgId: 'acme', namespace: 'notes', n: 1 };
    expect(c.lockedFieldEdits('a', valid, { ...valid, n: 2 })).toEqual([]);
    expect(c.lockedFieldEdits('a', valid, { ...valid, namespace: 'other', orgId: 'globex' })).toEqual(['orgId', 'namespace']);
    // namespace was a number: it named no resource, so setting one retargets nothing; orgId was valid and stays locked.
    const broken = { orgId: 'acme', namespace: 5, n: 1 };
    expect(c.lockedFieldEdits('a', broken, { ...valid, namespace: 'notes' })).toEqual([]);
    expect(c.lockedFieldEdits('a', broken, { ...valid, orgId: 'globex' })).toEqual(['orgId']);
  });
});
