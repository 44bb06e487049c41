import { z } from 'zod';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';

/** One email as the mailer "sent" it: the example writes to an outbox list instead of an SMTP server. */
export const sentEmailSchema = z.object({
  to: z.email(),
  subject: z.string(),
  body: z.string(),
  sentAt: z.number().int(),
  /** The job that sent it: a retry of the same job finds its email already sent. */
  jobId: z.string(),
});
export type SentEmail = z.infer<typeof sentEmailSchema>;

/**
 * The mailer's one store: the emails sent, one hash field per job. HSETNX makes a send
 * idempotent by itself: a retry of the same job (after a crash, say) finds its email
 * already there and sends nothing twice.
 */
export class Outbox {
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    keys: Keyspace,
  ) {
    this.key = keys.tagged('mailer', 'outbox');
  }

  /** Records the email unless its job already sent one; true when this call sent it. */
  async send(email: SentEmail): Promise<boolean> {
    return (await this.redis.hsetnx(this.key, email.jobId, JSON.stringify(email))) === 1;
  }

  /** The emails sent at or after `sinceMs`, oldest first. */
  async since(sinceMs: number): Promise<SentEmail[]> {
    const raw = await this.redis.hvals(this.key);
    return raw
      .map((r) => sentEmailSchema.parse(JSON.parse(r)))
      .filter((e) => e.sentAt >= sinceMs)
      .sort((a, b) => a.sentAt - b.sentAt);
  }
}
