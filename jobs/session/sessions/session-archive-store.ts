import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { resolveInside } from '@/lib/fs/resolve-inside';
import type { Tenant } from '@/lib/jobs/tenant';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import { tenantCovers } from '@/lib/jobs/tenant-key';
import type { TenantScopedStore } from '@/lib/jobs/tenant-scoped-store';
import { Lease } from '@/lib/redis/lease';
import { AppError } from '@/lib/errors/app-error';
import { appendDurably, listJsonlFiles, readJsonLines, recoverTail, rewriteWithout, sizeOf } from './jsonl-files';
import type { Session } from './session';
import type { SessionStore } from './session-store';

/** One archive line: the session as it was, and when it was archived. */
export type ArchivedSession = Session & { archivedAt: number };

/** The write-ahead record of the batch being archived (in Redis while it is in flight). */
const inFlightSchema = z.object({
  owner: z.string(),
  ids: z.array(z.string()),
  /** Each file the batch appends to, relative to the archive root, with its size before. */
  files: z.array(z.object({ path: z.string(), size: z.number().int().nonnegative() })),
});

export interface ArchiveRun {
  /** Who archives: the job id; a retry of the same job reclaims its lock. */
  owner: string;
  /** Sessions idle at or before this time are archived. */
  cutoff: number;
  batchSize: number;
  now: number;
  signal?: AbortSignal;
  onProgress?(archived: number, total: number): Promise<void>;
}

export interface ArchiveResult {
  archived: number;
  /** Of which finished from an interrupted batch. */
  recovered: number;
  files: string[];
}

/**
 * Idle sessions archived to `<root>/<orgId>/<YYYY-MM-DD>.jsonl`, exactly once even when
 * the job dies midway. Each batch is write-ahead: the ids and the sizes of the files it
 * will append to go to Redis first; then the lines are appended and fsynced; then the
 * sessions are deleted; then the record is cleared. A run that finds a record left by a
 * dead one reads what that batch got onto disk (cutting a torn last line), deletes
 * those sessions without writing them again, and archives the rest normally. A lease
 * keeps two runs (or a deletion) from touching the files at once.
 *
 * Files are per organisation so exporting or deleting a tenant's archive reads only its
 * own files. It is a tenant store: archived sessions are tenant data like live ones.
 */
export class SessionArchiveStore implements TenantScopedStore {
  readonly name = 'session-archives';
  private readonly inFlightKey: string;
  /** One archive run (or tenant deletion) at a time, owned by the job id so a retry takes it back. */
  private readonly lock: Lease;

  /** The archive root under a data directory. */
  static rootFor(dataDir: string): string {
    return path.join(dataDir, 'archives', 'sessions');
  }

  /** Where the write-ahead record of the batch in flight is kept. */
  static inFlightKeyOf(keys: Keyspace): string {
    return keys.tagged('sessions', 'sessions', 'archive', 'in-flight');
  }

  constructor(
    private readonly redis: RedisClient,
    keys: Keyspace,
    private readonly sessions: SessionStore,
    /** Archive root: `SessionArchiveStore.rootFor(config.dataDir)`. */
    readonly root: string,
    opts: { lockTtlMs?: number } = {},
  ) {
    this.inFlightKey = SessionArchiveStore.inFlightKeyOf(keys);
    this.lock = new Lease(redis, keys.tagged('sessions', 'sessions', 'archive', 'lock'), { ttlMs: opts.lockTtlMs ?? 120_000 });
  }

  async archiveIdle(run: ArchiveRun): Promise<ArchiveResult> {
    return this.holding(run.owner, async () => {
      const files = new Set<string>();
      const recovered = await this.recover();
      let archived = recovered;
      let total = archived + (await this.sessions.countIdle(run.cutoff));
      await run.onProgress?.(archived, total);
      for (;;) {
        run.signal?.throwIfAborted();
        const batch = await this.sessions.idle(run.cutoff, run.batchSize);
        if (batch.length === 0) break;
        for (const f of await this.archiveBatch(batch, run.owner, run.now)) files.add(f);
        archived += batch.length;
        total = Math.max(total, archived);
        if (!(await this.lock.renew(run.owner))) throw new AppError('CONFLICT', `The session archive lease of ${run.owner} expired`);
        await run.onProgress?.(archived, total);
      }
      return { archived, recovered, files: [...files].sort() };
    });
  }

  /**
   * Finishes a batch a dead run left in flight; returns how many of its sessions were
   * on disk (and are now deleted). Those not on disk stay live for the next batch.
   */
  private async recover(): Promise<number> {
    const raw = await this.redis.get(this.inFlightKey);
    if (!raw) return 0;
    const inFlight = inFlightSchema.parse(JSON.parse(raw));
    const onDisk = new Set<string>();
    for (const f of inFlight.files) {
      for (const line of await recoverTail(resolveInside(this.root, ...f.path.split('/')), f.size)) {
        onDisk.add((line as ArchivedSession).id);
      }
    }
    const archived = inFlight.ids.filter((id) => onDisk.has(id));
    await this.sessions.removeArchived(archived);
    await this.redis.del(this.inFlightKey);
    return archived.length;
  }

  private async archiveBatch(batch: Session[], owner: string, now: number): Promise<string[]> {
    const day = new Date(now).toISOString().slice(0, 10);
    const byFile = new Map<string, Session[]>();
    for (const s of batch) {
      // `<orgId>/<day>.jsonl`; every use below goes through resolveInside.
      const rel = `${s.tenant.orgId}/${day}.jsonl`;
      byFile.set(rel, [...(byFile.get(rel) ?? []), s]);
    }
    const files = await Promise.all(
      [...byFile.keys()].sort().map(async (rel) => ({ path: rel, size: (await sizeOf(resolveInside(this.root, ...rel.split('/')))) ?? 0 })),
    );
    await this.redis.set(this.inFlightKey, JSON.stringify({ owner, ids: batch.map((s) => s.id), files }));
    for (const { path: rel } of files) {
      const lines = byFile.get(rel)!.map((s) => `${JSON.stringify({ ...s, archivedAt: now } satisfies ArchivedSession)}\n`);
      await appendDurably(resolveInside(this.root, ...rel.split('/')), lines.join(''));
    }
    await this.sessions.removeArchived(batch.map((s) => s.id));
    await this.redis.del(this.inFlightKey);
    return files.map((f) => path.join(this.root, f.path));
  }

  async countByTenant(tenant: Tenant): Promise<number> {
    let n = 0;
    for await (const _ of this.exportByTenant(tenant)) n++;
    return n;
  }

  async *exportByTenant(tenant: Tenant): AsyncIterable<Record<string, unknown>> {
    for (const file of await listJsonlFiles(this.orgDir(tenant.orgId))) {
      for await (const line of readJsonLines(file)) {
        const s = line as ArchivedSession;
        if (tenantCovers(tenant, s.tenant)) yield s;
      }
    }
  }

  /**
   * Removes the tenant's archived sessions: the organisation's directory, or the
   * workspace's lines rewritten out of its files. Holds the archive lease and finishes
   * any interrupted batch first, so the write-ahead offsets stay true.
   */
  async deleteByTenant(tenant: Tenant): Promise<number> {
    const owner = `data-deletion:${randomUUID()}`;
    return this.holding(owner, async () => {
      await this.recover();
      const files = await listJsonlFiles(this.orgDir(tenant.orgId));
      let removed = 0;
      if (!tenant.workspaceId) {
        removed = await this.countByTenant(tenant);
        await rm(this.orgDir(tenant.orgId), { recursive: true, force: true });
        return removed;
      }
      for (const file of files) {
        removed += await rewriteWithout(file, (line) => tenantCovers(tenant, (line as ArchivedSession).tenant));
      }
      return removed;
    });
  }

  /**
   * Runs `fn` holding the archive lease as `owner`, then frees it. A lease held by
   * another owner is a CONFLICT, which the runtime retries with backoff.
   */
  private async holding<T>(owner: string, fn: () => Promise<T>): Promise<T> {
    const holder = await this.lock.tryAcquire(owner);
    if (holder) throw new AppError('CONFLICT', `The session archive is held by ${holder}; try again when it finishes`, { holder });
    try {
      return await fn();
    } finally {
      await this.lock.release(owner);
    }
  }

  private orgDir(orgId: string): string {
    return resolveInside(this.root, orgId);
  }
}
