import 'server-only';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { type ChannelInput, channelSecrets, redact } from '@/lib/alerts/alert-channel';
import { ChannelSender } from '@/lib/alerts/channels/channel-sender';
import type { Bullpen } from '@/lib/bullpen';
import { AppError } from '@/lib/errors/app-error';

/** The channel form as the page sends it: flat fields, secrets left empty to keep the stored ones. */
export const channelFormSchema = z
  .object({
    id: z.string().max(40),
    name: z.string().max(80),
    kind: z.enum(['slack', 'webhook', 'email']),
    url: z.string().max(2_048).optional(),
    secret: z.string().max(256).optional(),
    host: z.string().max(253).optional(),
    port: z.coerce.number().int().min(1).max(65_535).optional(),
    secure: z.boolean().optional(),
    user: z.string().max(254).optional(),
    password: z.string().max(1_024).optional(),
    from: z.string().max(254).optional(),
    /** Comma-separated addresses. */
    to: z.string().max(5_000).optional(),
  })
  .strict();

/** The stored channel's input for a form; what it lacks is refused by the channel's own schema. */
export function channelInputOf(form: z.output<typeof channelFormSchema>): ChannelInput {
  const base = { id: form.id, name: form.name };
  const blank = (s?: string) => (s?.trim() ? s.trim() : undefined);
  if (form.kind === 'slack') return { ...base, target: { kind: 'slack', url: blank(form.url) as string } };
  if (form.kind === 'webhook')
    return { ...base, target: { kind: 'webhook', url: blank(form.url) as string, secret: blank(form.secret) as string } };
  return {
    ...base,
    target: {
      kind: 'email',
      host: blank(form.host) as string,
      port: form.port,
      secure: form.secure,
      user: blank(form.user),
      password: blank(form.password),
      from: blank(form.from) as string,
      to: (form.to ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    },
  };
}

/**
 * Sends a test message to one channel now, from the dashboard's process, so the admin
 * reads the outcome at once; the outcome is recorded as the channel's status. A failure
 * is UNAVAILABLE with the channel's secrets taken out of its message.
 */
export async function sendChannelTest(bullpen: Bullpen, id: string): Promise<{ id: string; sentAt: number }> {
  const channel = await bullpen.alerts.config.channel(id);
  if (!channel) throw new AppError('NOT_FOUND', `No channel "${id}"`);
  const sender = new ChannelSender({ allowHosts: bullpen.config.WEBHOOK_ALLOW_HOSTS });
  const message = { id: randomUUID(), at: new Date().toISOString(), test: true, lines: [] };
  try {
    await sender.send(channel, message);
  } catch (err) {
    const error = redact(err instanceof Error ? err.message : String(err), channelSecrets(channel));
    await bullpen.alerts.state.recordDelivery(id, { ok: false, at: Date.now(), error, dropped: false });
    throw new AppError('UNAVAILABLE', `The test did not reach ${channel.name}: ${error}`);
  }
  const sentAt = Date.now();
  await bullpen.alerts.state.recordDelivery(id, { ok: true, at: sentAt });
  return { id, sentAt };
}
