import { describe, expect, it } from 'vitest';
import { JOB_GROUPS, JOB_TYPE_NAMES, JOB_TYPES } from '@/lib/jobs/registry';
import { defaultJobOptions } from '@/lib/jobs/queues';
import { PRIORITY } from '@/lib/jobs/priority';

describe('job registry', () => {
  it('holds the 18 job types of the requirements in its seven groups', () => {
    expect(JOB_TYPE_NAMES).toHaveLength(18);
    expect(new Set(Object.values(JOB_TYPES).map((d) => d.group))).toEqual(new Set(JOB_GROUPS));
  });

  it('carries the required defaults', () => {
    expect(JOB_TYPES['memory-consolidation']).toMatchObject({
      attempts: 3,
      backoff: { type: 'exponential', delayMs: 5_000 },
      timeoutMs: 300_000,
    });
    expect(JOB_TYPES['embedding-batch']).toMatchObject({
      attempts: 5,
      backoff: { type: 'exponential', delayMs: 2_000 },
      timeoutMs: 60_000,
    });
    expect(JOB_TYPES['webhook-dispatch']).toMatchObject({
      attempts: 10,
      backoff: { type: 'exponential', delayMs: 1_000 },
      timeoutMs: 30_000,
    });
    expect(JOB_TYPES['pattern-training']).toMatchObject({ attempts: 2, backoff: { type: 'fixed', delayMs: 60_000 }, timeoutMs: 3_600_000 });
    expect(JOB_TYPES['session-cleanup']).toMatchObject({
      attempts: 3,
      backoff: { type: 'exponential', delayMs: 10_000 },
      timeoutMs: 120_000,
    });
  });

  it('marks the required critical types', () => {
    const critical = JOB_TYPE_NAMES.filter((t) => JOB_TYPES[t].critical).sort();
    expect(critical).toEqual(['audit-export', 'data-deletion', 'webhook-dispatch']);
  });

  it('turns defaults into BullMQ options: full jitter, BullMQ priority order, retention', () => {
    expect(defaultJobOptions('webhook-dispatch')).toEqual({
      attempts: 10,
      backoff: { type: 'full-jitter', delay: 1_000 },
      priority: PRIORITY.HIGH,
      removeOnComplete: { count: 100 },
      removeOnFail: { count: 1_000 },
    });
    expect(defaultJobOptions('pattern-training').backoff).toEqual({ type: 'fixed', delay: 60_000 });
    expect(defaultJobOptions('data-deletion').priority).toBe(1);
  });
});
