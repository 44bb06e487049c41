import type { RedisClient, RedisPipeline } from './connection';

/** What a script may be given: strings, numbers (sent as strings) and bytes. */
export type LuaArg = string | number | Buffer;
type Runner = (...args: Array<string | Buffer | number>) => Promise<unknown>;
const wire = (a: LuaArg) => (typeof a === 'number' ? String(a) : a);

/**
 * A Lua script kept in a `.lua` file beside the module that runs it (so it is read and
 * diffed as Lua; `npm run lua` bundles a folder's files into its `lua/index.ts`, as
 * BullMQ's build does), defined on each connection with ioredis `defineCommand`,
 * as BullMQ loads its own scripts. ioredis sends EVALSHA and falls back to EVAL when a
 * server answers NOSCRIPT (a new, restarted or failed-over node); on a cluster it
 * routes by the first key, and every script's keys share one hash tag.
 *
 * `prelude` sources (shared Lua helpers) are prepended in order.
 */
export class LuaCommand {
  readonly source: string;
  /** The method name `defineCommand` adds to a client: unique per script. */
  readonly command: string;
  private readonly defined = new WeakSet<object>();

  constructor(
    readonly name: string,
    source: string,
    prelude: readonly string[] = [],
  ) {
    this.source = [...prelude, source].join('\n');
    this.command = `bullpen_${name.replace(/[^A-Za-z0-9]/g, '_')}`;
  }

  /** Runs the script on `redis` with `keys` and `args`. */
  run(redis: RedisClient, keys: readonly string[], args: readonly LuaArg[]): Promise<unknown> {
    return this.runner(redis)(keys.length, ...keys, ...args.map(wire));
  }

  /**
   * Queues the script on a MULTI or pipeline. ioredis copies a connection's commands
   * into a pipeline when the pipeline is made, so `define(redis)` must come first.
   */
  queue(pipeline: RedisPipeline, keys: readonly string[], args: readonly LuaArg[]): void {
    const fn = (pipeline as unknown as Record<string, Runner | undefined>)[this.command];
    if (!fn) throw new Error(`Lua script ${this.name} was not defined on the connection before this pipeline was made`);
    fn.call(pipeline, keys.length, ...keys, ...args.map(wire));
  }

  private runner(redis: RedisClient): Runner {
    this.define(redis);
    const fn = (redis as unknown as Record<string, Runner>)[this.command];
    return fn.bind(redis);
  }

  /** Defines the script on `redis` (once); `run` does it itself, a pipeline needs it first. */
  define(redis: RedisClient): void {
    if (this.defined.has(redis)) return;
    redis.defineCommand(this.command, { lua: this.source });
    this.defined.add(redis);
  }
}
