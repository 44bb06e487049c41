import 'server-only';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AuditLog } from '@/lib/audit/audit-log';
import type { Logger } from '@/lib/logging/logger';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';

export const bulkOperationSchema = z.object({
  id: z.string(),
  /** What runs, as the audit names it: `queue.retry-all`, `queue.clean`, `dlq.replay-all`, ... */
  kind: z.string(),
  target: z.object({ kind: z.string(), id: z.string() }),
  by: z.string(),
  status: z.enum(['running', 'done', 'failed']),
  /** Items expected, when known up front. */
  total: z.number().int().nullable(),
  /** Items handled so far (succeeded + skipped + failed). */
  done: z.number().int(),
  succeeded: z.number().int(),
  skipped: z.number().int(),
  failed: z.number().int(),
  startedAt: z.number().int(),
  finishedAt: z.number().int().nullable(),
  /** The outcome in words, or the error that stopped it. */
  message: z.string().nullable(),
});
export type BulkOperation = z.infer<typeof bulkOperationSchema>;

export interface BulkCounts {
  succeeded: number;
  skipped: number;
  failed: number;
}

/** Reports progress so far (cumulative counts); the store writes it for the pollers. */
export type ReportProgress = (counts: BulkCounts & { total?: number }) => Promise<void>;

export interface BulkStart {
  kind: string;
  target: { kind: string; id: string };
  by: string;
  total?: number;
}

/** Progress records outlive the operation by a day, so an operator can read the outcome later. */
const RECORD_TTL_S = 24 * 60 * 60;

/**
 * Long bulk actions (retry all failed, clean, replay all) run in the background of
 * the dashboard process; their progress lives in Redis so any tab, or another
 * dashboard process, can poll it. The action returns the operation id at once
 * instead of holding an HTTP request open for minutes. The end is audited as
 * `<kind>.finished` with the counts (the start is audited by the action).
 */
export class BulkRunner {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
    private readonly logger: Logger,
    private readonly audit?: AuditLog,
  ) {}

  private key(id: string): string {
    return this.keys.tagged('dashboard', 'bulk', id);
  }

  /**
   * Records the operation, starts `work` without waiting for it and returns the
   * record plus a promise of the final record (tests await it; the dashboard does not).
   */
  async start(
    spec: BulkStart,
    work: (report: ReportProgress) => Promise<BulkCounts & { message?: string }>,
  ): Promise<{ operation: BulkOperation; finished: Promise<BulkOperation> }> {
    const op: BulkOperation = {
      id: randomUUID(),
      kind: spec.kind,
      target: spec.target,
      by: spec.by,
      status: 'running',
      total: spec.total ?? null,
      done: 0,
      succeeded: 0,
      skipped: 0,
      failed: 0,
      startedAt: Date.now(),
      finishedAt: null,
      message: null,
    };
    await this.write(op);
    const report: ReportProgress = async (c) => {
      Object.assign(op, c, { done: c.succeeded + c.skipped + c.failed });
      if (c.total !== undefined) op.total = c.total;
      await this.write(op);
    };
    const finished = work(report).then(
      async (c) => {
        Object.assign(op, c, {
          done: c.succeeded + c.skipped + c.failed,
          status: 'done',
          finishedAt: Date.now(),
          message: c.message ?? null,
        });
        return this.finish(op);
      },
      async (err: unknown) => {
        this.logger.error({ err, operation: op.id, kind: op.kind }, 'bulk operation failed');
        Object.assign(op, { status: 'failed', finishedAt: Date.now(), message: (err as Error)?.message ?? String(err) });
        return this.finish(op);
      },
    );
    return { operation: { ...op }, finished };
  }

  async get(id: string): Promise<BulkOperation | undefined> {
    if (!/^[0-9a-f-]{36}$/.test(id)) return undefined;
    const raw = await this.redis.get(this.key(id));
    if (!raw) return undefined;
    const parsed = bulkOperationSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  }

  private async write(op: BulkOperation): Promise<void> {
    await this.redis.set(this.key(op.id), JSON.stringify(op), 'EX', RECORD_TTL_S);
  }

  private async finish(op: BulkOperation): Promise<BulkOperation> {
    await this.write(op).catch((err) => this.logger.error({ err, operation: op.id }, 'could not store a bulk operation result'));
    await this.audit
      ?.append({
        actor: op.by,
        action: `${op.kind}.finished`,
        target: op.target,
        details: {
          operation: op.id,
          status: op.status,
          succeeded: op.succeeded,
          skipped: op.skipped,
          failed: op.failed,
          message: op.message,
        },
      })
      .catch((err) => this.logger.error({ err, operation: op.id }, 'could not audit a bulk operation result'));
    return { ...op };
  }
}
