import { createHash } from 'node:crypto';
import type { RedisClient } from '../redis/connection';

type LuaReply = unknown;

/**
 * A Lua script run by its SHA1 (EVALSHA), loaded with EVAL the first time a server
 * answers NOSCRIPT (a new, restarted or failed-over node). Runs on a single node and
 * on a cluster alike: ioredis routes by the first key, and all keys share one tag.
 */
export class LuaScript {
  readonly sha: string;

  constructor(
    readonly name: string,
    readonly source: string,
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: RedisClient, keys: string[], args: Array<string | number>): Promise<LuaReply> {
    const argv = args.map(String);
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...argv);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.includes('NOSCRIPT')) throw err;
      return redis.eval(this.source, keys.length, ...keys, ...argv);
    }
  }
}
