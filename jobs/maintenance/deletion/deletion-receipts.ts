import { z } from 'zod';
import { tenantSchema } from '@/lib/jobs/tenant';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';

export const deletionReceiptSchema = z.object({
  jobId: z.string().min(1),
  tenant: tenantSchema,
  reason: z.string().optional(),
  /** Records removed per store by the run that completed the deletion. */
  deleted: z.record(z.string(), z.number().int().nonnegative()),
  /** Verified remaining per store: all zero. */
  remaining: z.record(z.string(), z.number().int().nonnegative()),
  completedAt: z.number().int(),
});
export type DeletionReceipt = z.infer<typeof deletionReceiptSchema>;

/**
 * Proof that a tenant deletion completed, one per job id. It names the tenant (ids
 * only, no data) and is deliberately not a tenant store: it is the record that the
 * data is gone. Written once per job, so a retried or replayed deletion job leaves one
 * receipt and one audit entry.
 */
export class DeletionReceipts {
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    keys: Keyspace,
  ) {
    this.key = keys.tagged('deletion', 'receipts');
  }

  /** Stores the receipt unless the job has one; true when this call stored it. */
  async record(receipt: DeletionReceipt): Promise<boolean> {
    const r = deletionReceiptSchema.parse(receipt);
    return (await this.redis.hsetnx(this.key, r.jobId, JSON.stringify(r))) === 1;
  }

  async get(jobId: string): Promise<DeletionReceipt | undefined> {
    const raw = await this.redis.hget(this.key, jobId);
    return raw ? deletionReceiptSchema.parse(JSON.parse(raw)) : undefined;
  }
}
