import type { Tenant } from '@/lib/jobs/tenant';
import type { RedisClient, RedisPipeline } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import { TenantRecordsStore } from '../../shared/tenant-records-store';
import { trainingSampleSchema, type TrainingSample } from './trajectory';

/** Under the `learning` hash tag, like trajectories: both are written in one transaction. */
export const LEARNING_TAG = 'learning';

/** Training samples, ordered by their trajectory's creation time. */
export class SampleStore extends TenantRecordsStore<TrainingSample> {
  constructor(redis: RedisClient, keys: Keyspace) {
    super(redis, keys, {
      name: 'training-samples',
      tag: LEARNING_TAG,
      schema: trainingSampleSchema,
      score: (s) => s.createdAt,
    });
  }

  /** Adds a sample's writes to a transaction of the same hash tag. */
  stagePut(tx: RedisPipeline, sample: TrainingSample): void {
    this.records.stagePut(tx, this.records.parse(sample));
  }

  /**
   * The newest `limit` samples of a tenant, or of all tenants, in a deterministic order
   * (creation time, then id), so the same data always trains the same way.
   */
  load(limit: number, tenant?: Tenant): Promise<TrainingSample[]> {
    return this.records.newest(limit, tenant);
  }

  get(id: string): Promise<TrainingSample | undefined> {
    return this.records.get(id);
  }

  countAll(): Promise<number> {
    return this.records.countAll();
  }
}
