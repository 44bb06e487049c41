import { describe, expect, it } from 'vitest';
import { plural } from '@/lib/text/plural';

describe('plural', () => {
  it('puts the noun in the number of the count', () => {
    expect(plural(1, 'delayed job')).toBe('1 delayed job');
    expect(plural(0, 'delayed job')).toBe('0 delayed jobs');
    expect(plural(2, 'dead letter')).toBe('2 dead letters');
    expect(plural(1_200, 'job')).toBe('1,200 jobs');
    expect(plural(3, 'entry', 'entries')).toBe('3 entries');
  });
});
