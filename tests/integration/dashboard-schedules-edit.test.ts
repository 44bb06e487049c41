import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { saveScheduleForm } from '@/dashboard/schedules/schedules-edit';
import { testBullpen } from '../helpers/test-bullpen';
import { LARGER_TEST_JOBS, LARGER_TEST_SCHEDULES } from '../helpers/test-jobs';

let bullpen: Bullpen;

const server = useTestRedis();
afterEach(async () => {
  await bullpen?.close();
});

/** What BullMQ holds for a schedule: the Job Scheduler's pattern and zone, or undefined. */
async function scheduler(name: string, type: 'tidy' | 'report') {
  const s = await bullpen.queues.get(type).getJobScheduler(name);
  return s ? { pattern: s.pattern, tz: s.tz } : undefined;
}

describe('saveScheduleForm', () => {
  it('sends only the changed field: the others keep following the code default', async () => {
    bullpen = testBullpen(server.redis, { jobs: LARGER_TEST_JOBS, schedules: LARGER_TEST_SCHEDULES });
    const saved = await saveScheduleForm(bullpen, { name: 'tidy', pattern: ' 0  */5 * * * *', tz: 'UTC', data: '{}' }, 'alice');
    expect(saved).toMatchObject({ pattern: '0 */5 * * * *', tz: 'UTC', edited: true, editedBy: 'alice' });
    expect(saved.nextRuns).toHaveLength(5);
    expect(saved.nextRuns[1] - saved.nextRuns[0]).toBe(5 * 60_000);
    // The stored override names the pattern alone.
    const raw = await bullpen.redis.hget(bullpen.keys.tagged('schedules', 'overrides'), 'tidy');
    const override = JSON.parse(raw ?? '{}');
    expect(override.pattern).toBe('0 */5 * * * *');
    expect(override).not.toHaveProperty('tz');
    expect(override).not.toHaveProperty('data');
    // And BullMQ fires on it.
    expect(await scheduler('tidy', 'tidy')).toEqual({ pattern: '0 */5 * * * *', tz: 'UTC' });
  });

  it('puts the form’s own refusal under the field it concerns and changes nothing', async () => {
    bullpen = testBullpen(server.redis, { jobs: LARGER_TEST_JOBS, schedules: LARGER_TEST_SCHEDULES });
    await saveScheduleForm(bullpen, { name: 'tidy', pattern: '0 */10 * * * *', tz: 'UTC', data: '{}' }, 'alice');
    await expect(
      saveScheduleForm(bullpen, { name: 'tidy', pattern: '61 * * * * *', tz: 'Mars/Olympus', data: '{}' }, 'bob'),
    ).rejects.toMatchObject({
      code: 'INVALID_SCHEDULE',
      details: { fieldErrors: { pattern: ['seconds field 61 is out of range 0-59'], tz: [expect.stringContaining('unknown time zone')] } },
    });
    expect((await bullpen.schedules.get('tidy')).pattern).toBe('0 */10 * * * *');
    expect(await scheduler('tidy', 'tidy')).toEqual({ pattern: '0 */10 * * * *', tz: 'UTC' });
  });

  it('maps the service’s schema refusal of the data onto the data field', async () => {
    bullpen = testBullpen(server.redis, { jobs: LARGER_TEST_JOBS, schedules: LARGER_TEST_SCHEDULES });
    await expect(
      saveScheduleForm(bullpen, { name: 'tidy', pattern: '0 */15 * * * *', tz: 'UTC', data: '{"maxAgeMs": -1}' }, 'bob'),
    ).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { fieldErrors: { data: [expect.stringContaining('maxAgeMs')] } },
    });
    const s = await bullpen.schedules.get('tidy');
    expect([s.edited, s.data]).toEqual([false, {}]);
  });

  it('refuses a save that changes nothing', async () => {
    bullpen = testBullpen(server.redis, { jobs: LARGER_TEST_JOBS, schedules: LARGER_TEST_SCHEDULES });
    await expect(
      saveScheduleForm(bullpen, { name: 'report', pattern: '0 0 * * * *', tz: 'UTC', data: '{ }' }, 'bob'),
    ).rejects.toMatchObject({ code: 'VALIDATION' });
    expect((await bullpen.schedules.get('report')).edited).toBe(false);
  });

  it('changes zone and data together, and the summary shows the default beside them', async () => {
    bullpen = testBullpen(server.redis, { jobs: LARGER_TEST_JOBS, schedules: LARGER_TEST_SCHEDULES });
    const saved = await saveScheduleForm(
      bullpen,
      { name: 'report', pattern: '0 0 * * * *', tz: 'Europe/Berlin', data: '{"orgId": "org-42"}' },
      'carol',
    );
    expect(saved).toMatchObject({
      tz: 'Europe/Berlin',
      data: { orgId: 'org-42' },
      defaults: { pattern: '0 0 * * * *', tz: 'UTC', data: {} },
    });
    expect(await scheduler('report', 'report')).toEqual({ pattern: '0 0 * * * *', tz: 'Europe/Berlin' });
  });
});
