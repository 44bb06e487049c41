import { describe, expect, it } from 'vitest';
import { parseClientNames, workersOf } from '@/lib/redis/client-list';

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Lines as redis-server 7 writes them (fields abridged). */
const line = (id: number, name: string) =>
  `id=${id} addr=127.0.0.1:${50000 + id} laddr=127.0.0.1:6379 fd=8 name=${name} age=3 idle=0 flags=N db=0 cmd=client|list`;

describe('CLIENT LIST, read once for every queue', () => {
  it('takes each client’s name, skipping unnamed ones and blank lines', () => {
    const reply = [line(1, 'a'), line(2, ''), line(3, 'bull:x:w:y'), ''].join('\n');
    expect(parseClientNames(reply)).toEqual(['a', 'bull:x:w:y']);
    // `laddr=` or another field ending in "name=" is not the name.
    expect(parseClientNames('id=4 lib-name=ioredis name=real lib-ver=5')).toEqual(['real']);
  });

  it('matches a queue’s worker connections as BullMQ names them, and only that queue’s', () => {
    const queue = { name: 'webhook-dispatch', opts: { prefix: 'bullpen:{webhook-dispatch}' } };
    const base = `bullpen:{webhook-dispatch}:${b64('webhook-dispatch')}`;
    const names = [
      [
        `${base}:w:bullpen:host:1`,
        `${base}:w:bullpen:host:2`,
        base,
        `${base}:qe`,
        `bullpen:{quota-check}:${b64('quota-check')}:w:bullpen:host:1`,
        `${base}x:w:nope`,
      ],
    ];
    expect(workersOf(names, queue)).toEqual(['bullpen:host:1', 'bullpen:host:2', base]);
    // BullMQ's default prefix when none is set.
    expect(workersOf([[`bull:${b64('q')}:w:one`]], { name: 'q', opts: {} })).toEqual(['one']);
  });

  it('on a cluster, counts the node that holds the queue’s connections (the most of them)', () => {
    const queue = { name: 'q', opts: { prefix: 'p' } };
    const w = (n: string) => `p:${b64('q')}:w:${n}`;
    expect(workersOf([[w('a')], [w('b'), w('c')], []], queue)).toEqual(['b', 'c']);
    expect(workersOf([[], []], queue)).toEqual([]);
  });
});
