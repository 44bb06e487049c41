import { z } from 'zod';
import { PermanentError } from '@/lib/errors/permanent-error';
import type { JobHandler } from '@/lib/runtime/handler';
import type { Outbox } from './outbox';

export const sendEmailSchema = z.object({
  to: z.email(),
  subject: z.string().min(1).max(200),
  body: z.string().max(10_000).default(''),
});

/** What the mailer's handlers are given: its store, nothing else. */
export interface MailerStores {
  outbox: Outbox;
}

/**
 * send-email: "sends" one email by writing it to the outbox, once per job however
 * often the job runs. An address on the example's block list fails for good: a
 * permanent error goes to the dead letters at once instead of being retried.
 */
export function createSendEmailHandler({ outbox }: MailerStores): JobHandler<z.output<typeof sendEmailSchema>, { sent: boolean }> {
  return async (ctx) => {
    await ctx.log(`sending "${ctx.data.subject}" to ${ctx.data.to}`);
    if (ctx.data.to.endsWith('@blocked.example')) {
      throw new PermanentError(`${ctx.data.to} refuses all mail`, 'RECIPIENT_BLOCKED');
    }
    await ctx.progress(50, 'sending');
    const sent = await outbox.send({ ...ctx.data, sentAt: Date.now(), jobId: ctx.originJobId ?? ctx.jobId });
    await ctx.log(sent ? 'sent' : 'already sent by an earlier attempt; nothing sent twice');
    return { sent };
  };
}
