import { FAILED_PAGE, READ_FAILED_JOB } from '@/lib/dlq/scripts';
import { LuaCommand } from '@/lib/redis/lua-command';

/** The names the lease's scripts (lib/redis/lease.ts) run under on a connection. */
const LEASE = { acquire: 'lease-acquire', renew: 'lease-renew', release: 'lease-release' } as const;

/** A failed job as a test puts it in a queue's failed set. */
export interface FailedJobSeed {
  id: string;
  /** Its score in the failed set, as BullMQ writes it. */
  finishedOn: number;
  failedReason?: string;
  stacktrace?: string[];
  data?: unknown;
}

/**
 * What the DLQ reconciler reads from Redis, held in memory: each queue's failed set
 * (ZREVRANGE, ZREVRANK, ZCOUNT with Redis's ordering of ties and its refusal of a bound
 * that is not a number), the job hashes (read as `dlq-failed-job.lua` reads them), the
 * hashes of resume points and head jobs, and the sets of jobs left unwritten. Every
 * command is logged in `calls`, and `readBatches`
 * holds how many job reads were in flight together, batch by batch.
 */
export class FailedSetsRedis {
  readonly calls: unknown[][] = [];
  readonly readBatches: number[] = [];
  private readonly sets = new Map<string, Map<string, number>>();
  private readonly jobs = new Map<string, FailedJobSeed>();
  private readonly hashes = new Map<string, Map<string, string>>();
  private readonly setsOfMembers = new Map<string, Set<string>>();
  /** Each lease key's holder (leases do not expire here: a test takes one over with `leases.set`). */
  readonly leases = new Map<string, string>();
  /** Job ids that leave their failed set just before their own read (retried, removed). */
  private readonly leaving = new Set<string>();
  private inFlight = 0;
  /**
   * Called as each page and each job read arrives, before it is answered: a test changes
   * the failed sets here, as other clients do while a sweep runs.
   */
  onCall: ((command: 'page' | 'read') => void) | undefined;

  constructor() {
    Object.assign(this, { [READ_FAILED_JOB.command]: this.readJob.bind(this), [FAILED_PAGE.command]: this.page.bind(this) });
    for (const [verb, name] of Object.entries(LEASE)) {
      Object.assign(this, { [new LuaCommand(name, '').command]: this.lease.bind(this, verb as keyof typeof LEASE) });
    }
  }

  /** The queue handle the reconciler gets from the registry. */
  queue(type: string) {
    return { keys: { failed: `bull:${type}:failed` }, toKey: (id: string) => `bull:${type}:${id}` };
  }

  fail(type: string, ...jobs: FailedJobSeed[]): void {
    const key = this.queue(type).keys.failed;
    const set = this.sets.get(key) ?? new Map<string, number>();
    this.sets.set(key, set);
    for (const job of jobs) {
      set.set(job.id, job.finishedOn);
      this.jobs.set(this.queue(type).toKey(job.id), job);
    }
  }

  /** The ids of a queue's failed set, newest first. */
  failedIds(type: string): string[] {
    return this.newestFirst(this.queue(type).keys.failed);
  }

  remove(type: string, id: string): void {
    this.sets.get(this.queue(type).keys.failed)?.delete(id);
    this.jobs.delete(this.queue(type).toKey(id));
  }

  /** The job leaves the failed set after its id was read in a page and before the job itself is. */
  leavesBeforeRead(type: string, id: string): void {
    this.leaving.add(`${type}\n${id}`);
  }

  /** A hash's fields, for a test to read or seed. */
  hash(key: string): Map<string, string> {
    const hash = this.hashes.get(key) ?? new Map<string, string>();
    this.hashes.set(key, hash);
    return hash;
  }

  /** The calls of one command, without the command's name. */
  callsOf(command: string): unknown[][] {
    return this.calls.filter((c) => c[0] === command).map((c) => c.slice(1));
  }

  defineCommand(): void {}

  async zrevrange(key: string, start: number, stop: number): Promise<string[]> {
    this.calls.push(['zrevrange', key, start, stop]);
    this.onCall?.('page');
    return this.newestFirst(key).slice(start, stop + 1);
  }

  async zrevrank(key: string, member: string): Promise<number | null> {
    this.calls.push(['zrevrank', key, member]);
    const rank = this.newestFirst(key).indexOf(member);
    return rank < 0 ? null : rank;
  }

  async zcount(key: string, min: string, max: string): Promise<number> {
    this.calls.push(['zcount', key, min, max]);
    const [lo, loOpen] = bound(min);
    const [hi, hiOpen] = bound(max);
    return [...(this.sets.get(key)?.values() ?? [])].filter((s) => (loOpen ? s > lo : s >= lo) && (hiOpen ? s < hi : s <= hi)).length;
  }

  async hget(key: string, field: string): Promise<string | null> {
    this.calls.push(['hget', key, field]);
    return this.hashes.get(key)?.get(field) ?? null;
  }

  async hset(key: string, field: string, value: string): Promise<number> {
    this.calls.push(['hset', key, field, value]);
    this.hash(key).set(field, value);
    return 1;
  }

  async hdel(key: string, field: string): Promise<number> {
    this.calls.push(['hdel', key, field]);
    return this.hashes.get(key)?.delete(field) ? 1 : 0;
  }

  async sadd(key: string, ...members: string[]): Promise<number> {
    this.calls.push(['sadd', key, ...members]);
    noMembers('sadd', members);
    const set = this.members(key);
    const added = members.filter((m) => !set.has(m)).length;
    for (const m of members) set.add(m);
    return added;
  }

  async srem(key: string, ...members: string[]): Promise<number> {
    this.calls.push(['srem', key, ...members]);
    noMembers('srem', members);
    const set = this.members(key);
    return members.filter((m) => set.delete(m)).length;
  }

  /** Up to `count` distinct members; in the order they were added, where Redis picks at random. */
  async srandmember(key: string, count: number): Promise<string[]> {
    this.calls.push(['srandmember', key, count]);
    return [...this.members(key)].slice(0, count);
  }

  /** A set's members, for a test to read or seed. */
  members(key: string): Set<string> {
    const set = this.setsOfMembers.get(key) ?? new Set<string>();
    this.setsOfMembers.set(key, set);
    return set;
  }

  /**
   * `dlq-failed-page.lua`'s reply: up to `count` ids with their scores, newest first,
   * after the job `id` at `score` (after every later failure when that job is not in the
   * set at that score), or from the head when `score` is ''.
   */
  private async page(_numKeys: number, key: string, count: string, score: string, id: string): Promise<string[]> {
    this.calls.push(['page', key, Number(count), score, id]);
    this.onCall?.('page');
    const set = this.sets.get(key) ?? new Map<string, number>();
    const order = this.newestFirst(key);
    let start = 0;
    if (score !== '') {
      const at = id === '' ? undefined : set.get(id);
      start = at !== undefined && at === Number(score) ? order.indexOf(id) + 1 : await this.zcount(key, `(${score}`, '+inf');
    }
    return order.slice(start, start + Number(count)).flatMap((member) => [member, String(set.get(member))]);
  }

  /** The lease scripts' replies: acquire gives null or the holder, renew and release 1 or 0. */
  private async lease(verb: keyof typeof LEASE, _numKeys: number, key: string, owner: string): Promise<string | number | null> {
    this.calls.push([`lease-${verb}`, key, owner]);
    const holder = this.leases.get(key);
    if (verb === 'acquire') {
      if (holder !== undefined && holder !== owner) return holder;
      this.leases.set(key, owner);
      return null;
    }
    if (holder !== owner) return 0;
    if (verb === 'release') this.leases.delete(key);
    return 1;
  }

  /** Ties in score come in reverse byte order of their members, as Redis sends them. */
  private newestFirst(key: string): string[] {
    return [...(this.sets.get(key) ?? new Map<string, number>()).entries()]
      .sort(([a, sa], [b, sb]) => sb - sa || (a < b ? 1 : a > b ? -1 : 0))
      .map(([id]) => id);
  }

  /** `dlq-failed-job.lua`'s reply, or null when the job is no longer in the failed set. */
  private async readJob(_numKeys: number, failedKey: string, jobKey: string, id: string, maxBytes: string): Promise<unknown> {
    this.calls.push(['read', id]);
    this.onCall?.('read');
    if (this.inFlight === 0) this.readBatches.push(0);
    this.readBatches[this.readBatches.length - 1]++;
    this.inFlight++;
    // Every read of a group is sent before the first reply comes back.
    await Promise.resolve();
    this.inFlight--;
    const type = failedKey.split(':')[1];
    if (this.leaving.delete(`${type}\n${id}`)) this.remove(type, id);
    const job = this.jobs.get(jobKey);
    if (!this.sets.get(failedKey)?.has(id) || !job) return null;
    const text = JSON.stringify(job.data ?? {});
    const cut = Buffer.byteLength(text) > Number(maxBytes) ? 1 : 0;
    const stack = JSON.stringify(job.stacktrace ?? []);
    const at = job.finishedOn;
    return [
      Buffer.byteLength(text),
      cut ? text.slice(0, 2048) : text,
      cut,
      'job',
      String(at - 10),
      '{}',
      job.failedReason ?? '',
      stack,
      '3',
      '3',
      String(at),
      String(at - 5),
    ];
  }
}

/** A ZCOUNT bound: its value and whether it is exclusive; anything else is refused, as Redis does. */
function bound(text: string): [number, boolean] {
  const open = text.startsWith('(');
  const body = open ? text.slice(1) : text;
  const value = /^[+-]?inf$/.test(body) ? (body.startsWith('-') ? -Infinity : Infinity) : body.trim() === '' ? Number.NaN : Number(body);
  if (Number.isNaN(value)) throw new Error('ERR min or max is not a float');
  return [value, open];
}

/** Redis refuses SADD and SREM without a member, as the reconciler must never send them. */
function noMembers(command: string, members: string[]): void {
  if (members.length === 0) throw new Error(`ERR wrong number of arguments for '${command}' command`);
}
