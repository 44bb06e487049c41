import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { saveScheduleForm } from '@/dashboard/schedules/schedules-edit';
import { makeBullpen } from '../helpers/make-bullpen';

let bullpen: Bullpen;

const server = useTestRedis();
afterEach(async () => {
  await bullpen?.close();
});

/** What BullMQ holds for a schedule: the Job Scheduler's pattern and zone, or undefined. */
async function scheduler(name: string, type: 'session-cleanup' | 'quota-check') {
  const s = await bullpen.queues.get(type).getJobScheduler(name);
  return s ? { pattern: s.pattern, tz: s.tz } : undefined;
}

describe('saveScheduleForm', () => {
  it('sends only the changed field: the others keep following the code default', async () => {
    bullpen = makeBullpen(server.redis);
    const saved = await saveScheduleForm(bullpen, { name: 'session-cleanup', pattern: ' 0  */5 * * * *', tz: 'UTC', data: '{}' }, 'alice');
    expect(saved).toMatchObject({ pattern: '0 */5 * * * *', tz: 'UTC', edited: true, editedBy: 'alice' });
    expect(saved.nextRuns).toHaveLength(5);
    expect(saved.nextRuns[1] - saved.nextRuns[0]).toBe(5 * 60_000);
    // The stored override names the pattern alone.
    const raw = await bullpen.redis.hget(bullpen.keys.tagged('schedules', 'overrides'), 'session-cleanup');
    const override = JSON.parse(raw ?? '{}');
    expect(override.pattern).toBe('0 */5 * * * *');
    expect(override).not.toHaveProperty('tz');
    expect(override).not.toHaveProperty('data');
    // And BullMQ fires on it.
    expect(await scheduler('session-cleanup', 'session-cleanup')).toEqual({ pattern: '0 */5 * * * *', tz: 'UTC' });
  });

  it('puts the form’s own refusal under the field it concerns and changes nothing', async () => {
    bullpen = makeBullpen(server.redis);
    await saveScheduleForm(bullpen, { name: 'session-cleanup', pattern: '0 */10 * * * *', tz: 'UTC', data: '{}' }, 'alice');
    await expect(
      saveScheduleForm(bullpen, { name: 'session-cleanup', pattern: '61 * * * * *', tz: 'Mars/Olympus', data: '{}' }, 'bob'),
    ).rejects.toMatchObject({
      code: 'INVALID_SCHEDULE',
      details: { fieldErrors: { pattern: ['seconds field 61 is out of range 0-59'], tz: [expect.stringContaining('unknown time zone')] } },
    });
    expect((await bullpen.schedules.get('session-cleanup')).pattern).toBe('0 */10 * * * *');
    expect(await scheduler('session-cleanup', 'session-cleanup')).toEqual({ pattern: '0 */10 * * * *', tz: 'UTC' });
  });

  it('maps the service’s schema refusal of the data onto the data field', async () => {
    bullpen = makeBullpen(server.redis);
    await expect(
      saveScheduleForm(bullpen, { name: 'session-cleanup', pattern: '0 */15 * * * *', tz: 'UTC', data: '{"maxAgeMs": -1}' }, 'bob'),
    ).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { fieldErrors: { data: [expect.stringContaining('maxAgeMs')] } },
    });
    const s = await bullpen.schedules.get('session-cleanup');
    expect([s.edited, s.data]).toEqual([false, {}]);
  });

  it('refuses a save that changes nothing', async () => {
    bullpen = makeBullpen(server.redis);
    await expect(
      saveScheduleForm(bullpen, { name: 'quota-check', pattern: '0 0 * * * *', tz: 'UTC', data: '{ }' }, 'bob'),
    ).rejects.toMatchObject({ code: 'VALIDATION' });
    expect((await bullpen.schedules.get('quota-check')).edited).toBe(false);
  });

  it('changes zone and data together, and the summary shows the default beside them', async () => {
    bullpen = makeBullpen(server.redis);
    const saved = await saveScheduleForm(
      bullpen,
      { name: 'quota-check', pattern: '0 0 * * * *', tz: 'Europe/Berlin', data: '{"orgId": "org-42"}' },
      'carol',
    );
    expect(saved).toMatchObject({
      tz: 'Europe/Berlin',
      data: { orgId: 'org-42' },
      defaults: { pattern: '0 0 * * * *', tz: 'UTC', data: {} },
    });
    expect(await scheduler('quota-check', 'quota-check')).toEqual({ pattern: '0 0 * * * *', tz: 'Europe/Berlin' });
  });
});
