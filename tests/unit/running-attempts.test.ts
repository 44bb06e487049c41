import { describe, expect, it } from 'vitest';
import { type ListedAttempt, RunningAttempts } from '@/lib/runtime/running-attempts';

const attempt = (jobId: string): ListedAttempt => ({ jobId });
const ids = (list: RunningAttempts) => [...list].map((a) => a.jobId);

describe('RunningAttempts', () => {
  it('lists the attempts oldest first and finds each by its job id', () => {
    const list = new RunningAttempts();
    const [a, b, c] = ['1', '2', '3'].map(attempt);
    for (const x of [a, b, c]) list.add(x);
    expect(ids(list)).toEqual(['1', '2', '3']);
    expect(list.size).toBe(3);
    expect(list.find('2')).toBe(b);
    expect(list.find('4')).toBeUndefined();
  });

  it('takes an attempt out from the middle, the head or the tail, and keeps the others linked', () => {
    const list = new RunningAttempts();
    const [a, b, c, d] = ['1', '2', '3', '4'].map(attempt);
    for (const x of [a, b, c, d]) list.add(x);
    list.remove(b);
    expect(ids(list)).toEqual(['1', '3', '4']);
    list.remove(a);
    expect(ids(list)).toEqual(['3', '4']);
    list.remove(d);
    expect(ids(list)).toEqual(['3']);
    expect(list.find('1')).toBeUndefined();
    list.remove(c);
    expect(ids(list)).toEqual([]);
    expect(list.size).toBe(0);
    // An emptied list takes attempts again, and one taken out can come back.
    list.add(b);
    list.add(a);
    expect(ids(list)).toEqual(['2', '1']);
  });

  it('lets go of a removed attempt: it points at no neighbour', () => {
    const list = new RunningAttempts();
    const [a, b, c] = ['1', '2', '3'].map(attempt);
    for (const x of [a, b, c]) list.add(x);
    list.remove(b);
    expect(b.runningPrev).toBeUndefined();
    expect(b.runningNext).toBeUndefined();
    expect(a.runningNext).toBe(c);
    expect(c.runningPrev).toBe(a);
  });

  it('ignores a second add and a remove of an attempt it does not hold', () => {
    const list = new RunningAttempts();
    const [a, b] = ['1', '2'].map(attempt);
    list.add(a);
    list.add(b);
    list.add(a);
    expect(ids(list)).toEqual(['1', '2']);
    expect(list.size).toBe(2);
    list.remove(b);
    list.remove(b);
    list.remove(attempt('3'));
    expect(ids(list)).toEqual(['1']);
    expect(list.size).toBe(1);
  });
});
