import { describe, expect, it } from 'vitest';
import { addJobRequestSchema, MAX_ADD_DELAY_MS, maxDelayIn, toDispatchOptions } from '@/dashboard/client/add-job-form';

const parse = (fields: Record<string, unknown>) => addJobRequestSchema.parse({ queue: 'q', payload: '{}', ...fields });

describe('the add-a-job form', () => {
  it('turns a post into only the dispatch options given: blank fields keep the type’s priority, no delay, no tenant', () => {
    expect(toDispatchOptions(parse({ priority: '', delay: '', orgId: ' ', workspaceId: '' }))).toEqual({});
    expect(toDispatchOptions(parse({ delay: '0' }))).toEqual({});
    expect(toDispatchOptions(parse({ priority: 'LOW', delay: '90', orgId: 'acme', workspaceId: 'ws' }))).toEqual({
      priority: 'LOW',
      delayMs: 90_000,
      tenant: { orgId: 'acme', workspaceId: 'ws' },
    });
    expect(toDispatchOptions(parse({ delay: 3, delayUnit: 'minutes', orgId: 'acme' }))).toEqual({
      delayMs: 180_000,
      tenant: { orgId: 'acme' },
    });
  });

  it('bounds the delay at one day in the unit it is typed in', () => {
    expect(MAX_ADD_DELAY_MS).toBe(86_400_000);
    expect(maxDelayIn('seconds')).toBe(86_400);
    expect(maxDelayIn('minutes')).toBe(1_440);
    expect(addJobRequestSchema.safeParse({ queue: 'q', payload: '{}', delay: 1_440, delayUnit: 'minutes' }).success).toBe(true);
    expect(addJobRequestSchema.safeParse({ queue: 'q', payload: '{}', delay: 1_441, delayUnit: 'minutes' }).success).toBe(false);
    expect(addJobRequestSchema.safeParse({ queue: 'q', payload: '{}', delay: 86_401 }).success).toBe(false);
  });

  it('refuses tenant ids the tenant rules refuse, a workspace without its organisation, and unknown fields', () => {
    for (const fields of [
      { orgId: '..' },
      { orgId: 'a/b' },
      { orgId: 'acme', workspaceId: '.x' },
      { workspaceId: 'ws' },
      { tenant: 'acme' },
    ]) {
      expect(addJobRequestSchema.safeParse({ queue: 'q', payload: '{}', ...fields }).success, JSON.stringify(fields)).toBe(false);
    }
  });
});
