import { AppError } from '@/lib/errors/app-error';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import { execAll } from '../../shared/tenant-records';
import { TenantRecordsStore } from '../../shared/tenant-records-store';
import { LEARNING_TAG, type SampleStore } from './sample-store';
import { trajectorySchema, type TrainingSample, type Trajectory } from './trajectory';

/**
 * Raw trajectories, with a `pending` index of those not yet turned into samples. A
 * trajectory leaves `pending` in the same transaction that writes its samples, so a
 * crash leaves it either unprocessed with no samples or processed with all of them.
 */
export class TrajectoryStore extends TenantRecordsStore<Trajectory> {
  private readonly redis: RedisClient;
  private readonly pendingKey: string;

  constructor(redis: RedisClient, keys: Keyspace) {
    const pendingKey = keys.tagged(LEARNING_TAG, 'trajectories', 'pending');
    super(redis, keys, {
      name: 'trajectories',
      tag: LEARNING_TAG,
      schema: trajectorySchema,
      score: (t) => t.createdAt,
      onPut: (tx, t) => (t.processedAt === undefined ? tx.zadd(pendingKey, t.createdAt, t.id) : tx.zrem(pendingKey, t.id)),
      onRemove: (tx, t) => tx.zrem(pendingKey, t.id),
    });
    this.redis = redis;
    this.pendingKey = pendingKey;
  }

  /** Records a new trajectory for processing; an existing id is a CONFLICT and nothing changes. */
  async add(trajectory: Omit<Trajectory, 'processedAt'>): Promise<Trajectory> {
    const created = await this.records.putIfAbsent(trajectory as Trajectory, (tx, t) => tx.zadd(this.pendingKey, 'NX', t.createdAt, t.id));
    if (!created) throw new AppError('CONFLICT', `Trajectory ${trajectory.id} already exists`);
    return trajectory as Trajectory;
  }

  get(id: string): Promise<Trajectory | undefined> {
    return this.records.get(id);
  }

  getMany(ids: readonly string[]): Promise<Array<Trajectory | undefined>> {
    return this.records.getMany(ids);
  }

  countPending(): Promise<number> {
    return this.redis.zcard(this.pendingKey);
  }

  /** Ids of unprocessed trajectories, oldest first, by rank. */
  pendingIds(offset: number, limit: number): Promise<string[]> {
    return this.redis.zrange(this.pendingKey, offset, offset + limit - 1);
  }

  /**
   * Writes each trajectory's samples and marks it processed, all in one transaction.
   * Sample ids derive from the trajectory, so a retry after a lost reply rewrites the
   * same samples instead of adding more.
   */
  async commitProcessed(
    items: ReadonlyArray<{ trajectory: Trajectory; samples: readonly TrainingSample[] }>,
    samples: SampleStore,
    processedAt: number,
  ): Promise<void> {
    if (items.length === 0) return;
    const tx = this.redis.multi();
    for (const { trajectory, samples: list } of items) {
      for (const s of list) samples.stagePut(tx, s);
      this.records.stagePut(tx, { ...trajectory, processedAt });
    }
    await execAll(tx);
  }

  /** Drops ids from `pending` (a processed or vanished trajectory found there). */
  async unpend(ids: readonly string[]): Promise<void> {
    if (ids.length) await this.redis.zrem(this.pendingKey, ...ids);
  }
}
