import { describe, expect, it } from 'vitest';
import { AppError } from '@/lib/errors/app-error';
import { Dispatcher } from '@/lib/jobs/dispatcher';
import type { QueueRegistry } from '@/lib/jobs/queues';
import { SOURCE_CATALOG } from '../helpers/source-jobs';

/** A registry that fails the test if anything reaches a queue. */
const untouchable = {
  jobs: SOURCE_CATALOG,
  get: () => {
    throw new Error('a refused dispatch reached Redis');
  },
} as unknown as QueueRegistry;
const dispatcher = new Dispatcher(untouchable, new Set(['webhook-dispatch']));

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('dispatcher refusals change nothing', () => {
  it('refuses an unknown type', async () => {
    const e = await refusal(dispatcher.dispatch('nope' as never, {} as never));
    expect(e.code).toBe('UNKNOWN_JOB_TYPE');
  });

  it('refuses a type without a handler', async () => {
    const e = await refusal(dispatcher.dispatch('slack-sync', { channelId: 'C1' }));
    expect(e).toMatchObject({ code: 'NO_HANDLER', status: 400 });
    expect(e.message).toMatch(/has no handler/);
  });

  it('refuses a bad payload with the schema’s message', async () => {
    const e = await refusal(dispatcher.dispatch('webhook-dispatch', { webhookId: '', event: 'x', payload: {} }));
    expect(e.code).toBe('VALIDATION');
    expect(e.message).toMatch(/webhookId/);
  });

  it('refuses bad options: tenant, priority, unknown keys', async () => {
    const data = { webhookId: 'w', event: 'e', payload: {} };
    expect((await refusal(dispatcher.dispatch('webhook-dispatch', data, { tenant: { orgId: 'a b' } }))).code).toBe('VALIDATION');
    expect((await refusal(dispatcher.dispatch('webhook-dispatch', data, { priority: 'URGENT' as never }))).message).toMatch(/priority/);
    expect((await refusal(dispatcher.dispatch('webhook-dispatch', data, { bogus: 1 } as never))).code).toBe('VALIDATION');
  });

  it('validates a whole bulk before sending any of it', async () => {
    const good = { type: 'webhook-dispatch' as const, data: { webhookId: 'w', event: 'e', payload: {} } };
    const e = await refusal(dispatcher.dispatchBulk([good, { ...good, data: { ...good.data, event: '' } }]));
    expect(e.message).toMatch(/^item 1:/);
  });
});
