import { z } from 'zod';
import { tenantSchema, type Tenant } from '@/lib/jobs/tenant';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import { tenantKey } from '@/lib/jobs/tenant-key';
import { TenantRecordsStore } from '../../shared/tenant-records-store';

const ts = z.string().regex(/^\d+\.\d+$/);

/** A summary owed to the channel for a completed sync window. */
export const summaryDueSchema = z.object({
  /** Window bounds: after `from` (absent: from the start), up to and including `to`. */
  from: ts.optional(),
  to: ts,
  text: z.string().min(1),
  /** Set just before posting: a retry that finds it checks Slack before posting again. */
  attemptedAt: z.number().int().optional(),
});

/** Where the sync of one tenant's channel stands. */
export const slackSyncStateSchema = z.object({
  /** `<tenantKey>|<channelId>`. */
  id: z.string().min(1),
  tenant: tenantSchema,
  channelId: z.string().min(1),
  /** Every message up to and including this ts is in memories. */
  cursorTs: ts.optional(),
  /**
   * A window being fetched over several runs (more new messages than one run's limit):
   * `newest` becomes the cursor when it is done; `latest` is the exclusive upper bound
   * still to fetch below. Slack pages newest first, so this is how a bounded run
   * resumes without a gap.
   */
  backfill: z
    .object({
      newest: ts,
      latest: ts,
      messages: z.number().int().nonnegative(),
      /** Texts of the window's newest messages, for its summary. */
      sample: z.array(z.string()).max(50),
    })
    .optional(),
  summaryDue: summaryDueSchema.optional(),
  lastSummary: z.object({ to: ts, ts, postedAt: z.number().int() }).optional(),
  updatedAt: z.number().int().nonnegative(),
});
export type SlackSyncState = z.infer<typeof slackSyncStateSchema>;

/** slack-sync's cursor per tenant and channel; tenant data (it names the tenant's channels). */
export class SlackSyncStateStore extends TenantRecordsStore<SlackSyncState> {
  constructor(redis: RedisClient, keys: Keyspace) {
    super(redis, keys, {
      name: 'slack-sync-state',
      tag: 'slack',
      schema: slackSyncStateSchema,
      score: (s) => s.updatedAt,
    });
  }

  static idOf(tenant: Tenant, channelId: string): string {
    return `${tenantKey(tenant)}|${channelId}`;
  }

  async get(tenant: Tenant, channelId: string): Promise<SlackSyncState | undefined> {
    return this.records.get(SlackSyncStateStore.idOf(tenant, channelId));
  }

  save(state: SlackSyncState): Promise<SlackSyncState> {
    return this.records.put(state);
  }
}
