import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digest32, fnv1a32 } from '@/jobs/shared/hash';
import { seededRandom, seedFrom } from '@/jobs/shared/seeded-random';

/*
 * Ids, shards and training seeds derive from these: a retried or replayed job finds what
 * its first run wrote only while they give the same answer on every host and version.
 */
describe('the job groups’ shared hashes', () => {
  it('fnv1a32 is 32-bit FNV-1a (published test vectors)', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('digest32 is the first 128 bits of SHA-256 in hex', () => {
    expect(digest32('abc')).toBe('ba7816bf8f01cfea414140de5dae2223');
    expect(digest32('job-1')).toBe(createHash('sha256').update('job-1').digest('hex').slice(0, 32));
  });

  it('seedFrom is fnv1a32, and one seed gives one sequence', () => {
    expect(seedFrom('job-42')).toBe(3_575_089_477);
    const a = seededRandom(seedFrom('job-42'));
    const b = seededRandom(seedFrom('job-42'));
    const xs = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs);
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
    expect(seededRandom(1)()).toBeCloseTo(0.6270739405881613, 15);
  });
});
