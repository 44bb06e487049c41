import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { leftOutSentence, splitBulkReplay } from '@/dashboard/client/bulk-replay-selection';
import { confirmationAsked, destructiveTypes } from '@/dashboard/jobs/job-start-rules';
import { JobCatalog } from '@/lib/jobs/job-catalog';
import { defineJob } from '@/lib/jobs/job-definition';

/** Issue 21: where the dashboard asks for the typed org before a job that destroys data starts again. */
const minimal = {
  group: 'g',
  description: 'd',
  schema: z.object({ orgId: z.string().optional() }),
  example: {},
  attempts: 1,
  backoff: { type: 'fixed', delayMs: 1 },
  timeoutMs: 1,
} as const;
const jobs = new JobCatalog([
  defineJob({ name: 'wipe', ...minimal, destructive: true }),
  defineJob({ name: 'send', ...minimal }),
  defineJob({ name: 'purge-all', ...minimal, destructive: true }),
]);

describe('confirmationAsked', () => {
  it('asks for the tenant org of a destructive type, then the payload org, then the type name', () => {
    expect(confirmationAsked(jobs, 'wipe', { orgId: 'acme' }, { orgId: 'acme' })).toBe('acme');
    expect(confirmationAsked(jobs, 'wipe', undefined, { orgId: 'globex' })).toBe('globex');
    expect(confirmationAsked(jobs, 'wipe', undefined, {})).toBe('wipe');
  });

  it('asks nothing for a type that destroys nothing, or one the table does not know', () => {
    expect(confirmationAsked(jobs, 'send', { orgId: 'acme' }, {})).toBeUndefined();
    expect(confirmationAsked(jobs, 'gone', { orgId: 'acme' }, {})).toBeUndefined();
  });

  it('names the destructive types of the table', () => {
    expect(destructiveTypes(jobs)).toEqual(['wipe', 'purge-all']);
  });
});

describe('a bulk replay of selected dead letters', () => {
  const chosen = [
    { id: 'a', jobType: 'send' },
    { id: 'b', jobType: 'wipe' },
    { id: 'c', jobType: 'send' },
    { id: 'd', jobType: 'purge-all' },
    { id: 'e', jobType: 'wipe' },
  ];

  it('sends the others and leaves out every destructive one, keeping the order', () => {
    const split = splitBulkReplay(chosen, destructiveTypes(jobs));
    expect(split.sent.map((c) => c.id)).toEqual(['a', 'c']);
    expect(split.leftOut.map((c) => c.id)).toEqual(['b', 'd', 'e']);
  });

  it('says how many were left out, of which types, and why', () => {
    const { leftOut } = splitBulkReplay(chosen, destructiveTypes(jobs));
    expect(leftOutSentence(leftOut)).toBe(
      'Left out 3 purge-all, wipe dead letters: a type that destroys data is replayed one at a time, by an admin who types the org it acts on.',
    );
    expect(leftOutSentence([{ jobType: 'wipe' }])).toMatch(/^Left out 1 wipe dead letter:/);
    expect(leftOutSentence([])).toBeUndefined();
  });
});
