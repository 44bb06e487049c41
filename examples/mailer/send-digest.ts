import { z } from 'zod';
import type { JobHandler } from '@/lib/runtime/handler';
import type { MailerStores } from './send-email';

export const sendDigestSchema = z.object({
  to: z.email().default('ops@mailer.example'),
  /** How far back the digest looks. */
  windowMs: z
    .number()
    .int()
    .min(60_000)
    .max(7 * 24 * 3_600_000)
    .default(24 * 3_600_000),
});

/** send-digest: counts the emails sent in the window and sends one summary email. */
export function createSendDigestHandler(stores: MailerStores): JobHandler<z.output<typeof sendDigestSchema>, { counted: number }> {
  return async (ctx) => {
    const since = Date.now() - ctx.data.windowMs;
    const sent = await stores.outbox.since(since);
    await ctx.log(`${sent.length} emails since ${new Date(since).toISOString()}`);
    await stores.outbox.send({
      to: ctx.data.to,
      subject: `Digest: ${sent.length} emails sent`,
      body: sent.map((e) => `${new Date(e.sentAt).toISOString()} ${e.to}: ${e.subject}`).join('\n'),
      sentAt: Date.now(),
      jobId: ctx.originJobId ?? ctx.jobId,
    });
    return { counted: sent.length };
  };
}
