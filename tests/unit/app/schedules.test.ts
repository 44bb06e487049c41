import { describe, expect, it } from 'vitest';
import { SHIPPED_SCHEDULES } from '@/jobs/schedules';
import { checkSpec } from '@/lib/schedules/check-spec';
import { SHIPPED_CATALOG } from '../../helpers/shipped-jobs';

const at = (iso: string) => new Date(iso).getTime();

describe('the shipped schedules', () => {
  it('hold the five of the requirements, each a valid pattern, zone and payload for its job type', () => {
    expect(SHIPPED_SCHEDULES.map((s) => [s.name, s.jobType, s.pattern, s.tz])).toEqual(
      expect.arrayContaining([
        ['session-cleanup', 'session-cleanup', '0 */15 * * * *', 'UTC'],
        ['memory-importance-decay', 'memory-importance-decay', '0 0 */6 * * *', 'UTC'],
        ['index-optimization', 'index-optimization', '0 0 3 * * *', 'UTC'],
        ['pattern-training-daily', 'pattern-training', '0 0 4 * * *', 'UTC'],
        ['quota-check', 'quota-check', '0 0 * * * *', 'UTC'],
      ]),
    );
    for (const s of SHIPPED_SCHEDULES) {
      const check = checkSpec(SHIPPED_CATALOG, s.jobType, s, at('2025-06-01T00:00:00Z'));
      expect(check, s.name).toMatchObject({ ok: true });
      expect(SHIPPED_CATALOG.get(s.jobType).schema.safeParse(s.data).success).toBe(true);
    }
  });

  it('checkSpec refuses data the job type’s schema rejects', () => {
    const check = checkSpec(SHIPPED_CATALOG, 'session-cleanup', { pattern: '0 0 3 * * *', tz: 'UTC', data: { maxAgeMs: -5 } }, 0);
    expect(check).toMatchObject({ ok: false, code: 'VALIDATION', field: 'data' });
  });
});
