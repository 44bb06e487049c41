import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LuaCommand } from '@/lib/redis/lua-command';
import { useTestRedis } from '../helpers/use-test-redis';

const lua = (name: string) => readFileSync(path.join(__dirname, '../fixtures/lua', name), 'utf8');
const INCR = new LuaCommand('test-incr', lua('incr.lua'));
const DOUBLE = new LuaCommand('test-double', lua('use-double.lua'), [lua('double.lua')]);

describe('LuaCommand', () => {
  const t = useTestRedis();

  it('runs a script by SHA and reloads it after the server forgot its scripts (a restart, a failover)', async () => {
    const { redis, keys } = await t.readyBullpen();
    const key = keys.tagged('lua', 'n');
    expect(await INCR.run(redis, [key], [2])).toBe('2');
    await redis.script('FLUSH');
    expect(await INCR.run(redis, [key], [3])).toBe('5');
  });

  it('prepends its prelude files, and queues on a MULTI of a connection it was defined on', async () => {
    const { redis, keys } = await t.readyBullpen();
    expect(await DOUBLE.run(redis, [], [21])).toBe(42);
    const key = keys.tagged('lua', 'm');
    INCR.define(redis);
    const multi = redis.multi();
    INCR.queue(multi, [key], [4]);
    INCR.queue(multi, [key], [1]);
    expect(await multi.exec()).toEqual([
      [null, '4'],
      [null, '5'],
    ]);
  });

  it('defines itself once per connection, so two connections each run it', async () => {
    const a = await t.readyBullpen();
    const b = await t.readyBullpen({ prefix: a.keys.root });
    const key = a.keys.tagged('lua', 'shared');
    await INCR.run(a.redis, [key], [1]);
    expect(await INCR.run(b.redis, [key], [1])).toBe('2');
  });

  it('refuses to queue on a pipeline made before it was defined, instead of dropping the command', async () => {
    const { redis, keys } = await t.readyBullpen();
    const fresh = new LuaCommand('test-incr-late', lua('incr.lua'));
    expect(() => fresh.queue(redis.multi(), [keys.tagged('lua', 'x')], [1])).toThrow(/was not defined on the connection/);
  });
});
