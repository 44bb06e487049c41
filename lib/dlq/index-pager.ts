import { createHash, randomUUID } from 'node:crypto';
import type { RedisClient } from '../redis/connection';
import type { DlqKeys } from './dlq-keys';
import type { ParsedFilter } from './filter';
import { INTERSECT, PAGE } from './scripts';

export interface IndexRow {
  id: string;
  /** failedAt, the score every index gives an entry. */
  score: number;
}

export interface IndexPage {
  rows: IndexRow[];
  total: number;
  nextCursor?: string;
}

/** Upper bound of failedAt when a filter gives none. */
const NO_UPPER_BOUND = Number.MAX_SAFE_INTEGER;

export interface IndexPagerOptions {
  /**
   * How long an intersection of several indexes is kept for the following pages.
   * Its key holds the DLQ's write version, so a cached one is never stale; the TTL
   * only bounds memory.
   * @defaultValue 10000
   */
  cacheTtlMs?: number;
  /** How long a bulk operation's snapshot lives between two batches. @defaultValue 120000 */
  snapshotTtlMs?: number;
}

/**
 * Pages through the DLQ's sorted-set indexes, newest first, without ever reading a whole
 * set: one filter dimension reads its index directly (ZREVRANGE by rank, O(log N + page));
 * several are intersected once into a short-lived key that the following pages reuse.
 */
export class IndexPager {
  private readonly cacheTtlMs: number;
  private readonly snapshotTtlMs: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DlqKeys,
    opts: IndexPagerOptions = {},
  ) {
    this.cacheTtlMs = opts.cacheTtlMs ?? 10_000;
    this.snapshotTtlMs = opts.snapshotTtlMs ?? 120_000;
  }

  /** One page of ids matching the filter, with the total and the next cursor. */
  async page(filter: ParsedFilter, page: { limit: number; cursor?: string; offset: number }): Promise<IndexPage> {
    return this.pageOf(await this.resolve(filter), filter, page, true);
  }

  /**
   * Every matching id, in batches, newest first. Several dimensions are intersected
   * into a snapshot of the walk's own, so entries the caller changes while walking
   * (a replay moves an entry out of `pending`) neither vanish from nor reappear in it;
   * callers re-check each entry, since the snapshot does not follow later changes.
   */
  async *walk(filter: ParsedFilter, batchSize: number): AsyncGenerator<IndexRow[]> {
    const sources = this.sources(filter);
    let key = sources[0] ?? this.keys.all;
    let snapshot: string | undefined;
    if (sources.length > 1) {
      snapshot = this.keys.intersection(`snap-${randomUUID()}`);
      await INTERSECT.run(this.redis, [snapshot, ...sources], [this.snapshotTtlMs]);
      key = snapshot;
    }
    try {
      let cursor: string | undefined;
      for (;;) {
        const page = await this.pageOf(key, filter, { limit: batchSize, cursor, offset: 0 }, false);
        if (page.rows.length) yield page.rows;
        if (!page.nextCursor) return;
        cursor = page.nextCursor;
        if (snapshot) await this.redis.pexpire(snapshot, this.snapshotTtlMs);
      }
    } finally {
      if (snapshot) await this.redis.del(snapshot);
    }
  }

  /** The index keys a filter selects; the time range is a score range on them. */
  private sources(f: ParsedFilter): string[] {
    const keys: string[] = [];
    if (f.status) keys.push(this.keys.byStatus(f.status));
    if (f.type) keys.push(this.keys.byType(f.type));
    if (f.tenant) keys.push(this.keys.byTenant(f.tenant));
    if (f.errorClass) keys.push(this.keys.byErrorClass(f.errorClass));
    return keys;
  }

  private async resolve(filter: ParsedFilter): Promise<string> {
    const sources = this.sources(filter);
    if (sources.length === 0) return this.keys.all;
    if (sources.length === 1) return sources[0];
    const version = (await this.redis.get(this.keys.version)) ?? '0';
    const hash = createHash('sha1')
      .update(JSON.stringify([[...sources].sort(), version]))
      .digest('hex')
      .slice(0, 24);
    const dest = this.keys.intersection(hash);
    await INTERSECT.run(this.redis, [dest, ...sources], [this.cacheTtlMs]);
    return dest;
  }

  private async pageOf(
    key: string,
    f: ParsedFilter,
    page: { limit: number; cursor?: string; offset: number },
    withTotal: boolean,
  ): Promise<IndexPage> {
    const [cursorScore, cursorId] = page.cursor ? splitCursor(page.cursor) : ['0', ''];
    const reply = (await PAGE.run(
      this.redis,
      [key],
      [f.from ?? 0, f.to ?? NO_UPPER_BOUND, page.limit, cursorScore, cursorId, page.offset, withTotal ? 1 : 0],
    )) as Array<string | number>;
    const total = Number(reply[0]);
    const rows: IndexRow[] = [];
    for (let i = 1; i + 1 < reply.length; i += 2) rows.push({ id: String(reply[i]), score: Number(reply[i + 1]) });
    const more = rows.length > page.limit;
    const shown = more ? rows.slice(0, page.limit) : rows;
    const last = shown[shown.length - 1];
    return { rows: shown, total, nextCursor: more && last ? `${last.score}:${last.id}` : undefined };
  }
}

function splitCursor(cursor: string): [string, string] {
  const i = cursor.indexOf(':');
  return [cursor.slice(0, i), cursor.slice(i + 1)];
}
