import type { Redis } from 'ioredis';

/** A command MONITOR saw naming a watched key: when, what, and which client (address and CLIENT LIST name). */
export interface SeenCommand {
  at: number;
  args: string[];
  source: string;
}

/** The snapshot's own reads (support/redis-snapshot.ts): they name every key and change none. */
const SNAPSHOT_READS = new Set(['scan', 'type', 'pexpiretime', 'dump', 'hkeys', 'hvals', 'smembers']);

/** How many recent commands naming the prefix are kept: a property's step sends far fewer. */
const KEPT = 5_000;

/**
 * Which client wrote a key, for a "refused but changed Redis" failure: a MONITOR
 * connection keeps the last commands whose arguments name the prefix, so a failure can
 * say who touched the keys it names (an action, or a process writing in the background)
 * instead of only that they changed. MONITOR slows Redis; these specs time nothing.
 */
export class RedisWriters {
  private readonly seen: SeenCommand[] = [];

  private constructor(
    private readonly monitor: Redis,
    private readonly redis: Redis,
  ) {}

  static async watch(redis: Redis, prefix: string): Promise<RedisWriters> {
    const monitor = await redis.duplicate().monitor();
    const writers = new RedisWriters(monitor, redis);
    monitor.on('monitor', (time: string, args: string[], source: string) => {
      if (SNAPSHOT_READS.has(String(args[0]).toLowerCase())) return;
      if (!args.some((a) => typeof a === 'string' && a.includes(prefix))) return;
      writers.seen.push({ at: Number(time), args, source });
      if (writers.seen.length > KEPT) writers.seen.splice(0, writers.seen.length - KEPT);
    });
    return writers;
  }

  /**
   * The commands seen since `sinceMs` (Redis's clock, as a snapshot's `takenAt`) that name
   * any of `changes` (as changedKeys writes them: `+k`, `-k`, `~k`, `@k`), each with its
   * client's name from CLIENT LIST: one line each.
   */
  async touching(changes: readonly string[], sinceMs: number): Promise<string[]> {
    const keys = changes.map((c) => c.slice(1));
    const names = new Map<string, string>();
    const list = (await this.redis.client('LIST')) as string;
    for (const line of list.split('\n')) {
      const addr = /\baddr=(\S+)/.exec(line)?.[1];
      if (addr) names.set(addr, /\bname=(\S*)/.exec(line)?.[1] || '(no name)');
    }
    return this.seen
      .filter((c) => c.at * 1_000 >= sinceMs && c.args.some((a) => keys.some((k) => a.includes(k))))
      .map((c) => {
        // MONITOR's source is "<db> <addr>", or "lua" for a command a script ran.
        const addr = c.source.split(' ').pop() ?? c.source;
        const args = c.args.map((a) => (a.length > 80 ? `${a.slice(0, 80)}…` : a)).join(' ');
        return `${new Date(c.at * 1_000).toISOString()} ${c.source} (${names.get(addr) ?? 'gone'}): ${args}`;
      });
  }

  stop(): void {
    this.monitor.disconnect();
  }
}
