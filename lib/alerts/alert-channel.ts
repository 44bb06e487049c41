import { z } from 'zod';

/** How a channel reaches people (docs/alerts.md, "Channels"). */
export const CHANNEL_KINDS = ['slack', 'webhook', 'email'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export const CHANNEL_ID = /^[a-z0-9][a-z0-9-]{0,39}$/;
const httpUrl = z
  .url({ protocol: /^https?$/, error: 'an http(s) URL' })
  .max(2_048)
  .refine((u) => !new URL(u).username && !new URL(u).password, 'a URL without user or password');
const name = z.string().trim().min(1).max(80);

const slack = z.object({ kind: z.literal('slack'), url: httpUrl }).strict();
const webhook = z.object({ kind: z.literal('webhook'), url: httpUrl, secret: z.string().min(16).max(256) }).strict();
const email = z
  .object({
    kind: z.literal('email'),
    host: z
      .string()
      .trim()
      .min(1)
      .max(253)
      .regex(/^[A-Za-z0-9.:[\]-]+$/, 'a host name or address'),
    port: z.number().int().min(1).max(65_535).default(587),
    /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
    secure: z.boolean().default(false),
    user: z.string().max(254).optional(),
    password: z.string().max(1_024).optional(),
    from: z.email().max(254),
    to: z.array(z.email().max(254)).min(1).max(20),
  })
  .strict();

/** A channel as stored, secrets included: only the runtime reads it whole. */
export const channelSchema = z.object({
  id: z.string().regex(CHANNEL_ID, 'lowercase letters, digits and - (at most 40)'),
  name,
  enabled: z.boolean().default(true),
  target: z.discriminatedUnion('kind', [slack, webhook, email]),
});
export type AlertChannel = z.output<typeof channelSchema>;
export type ChannelInput = z.input<typeof channelSchema>;

/** A channel as anyone may see it: its kind and where it points, never a URL, a secret or a password. */
export interface ChannelView {
  id: string;
  name: string;
  enabled: boolean;
  kind: ChannelKind;
  /** The host it sends to (`hooks.slack.com`, `smtp.example.com:587`): enough to recognise it. */
  host: string;
  /** Email only: whom it writes to. */
  to?: string[];
  /** Which secrets are set, never their values. */
  secrets: { url?: boolean; secret?: boolean; password?: boolean };
}

/** The view of `channel` with every secret left out (a webhook URL may hold a token in its path). */
export function viewChannel(channel: AlertChannel): ChannelView {
  const t = channel.target;
  const base = { id: channel.id, name: channel.name, enabled: channel.enabled, kind: t.kind };
  if (t.kind === 'email') return { ...base, host: `${t.host}:${t.port}`, to: t.to, secrets: { password: Boolean(t.password) } };
  const host = new URL(t.url).host;
  return t.kind === 'slack' ? { ...base, host, secrets: { url: true } } : { ...base, host, secrets: { url: true, secret: true } };
}

/** Every secret string of a channel, so an error message that quotes one can be cleaned. */
export function channelSecrets(channel: AlertChannel): string[] {
  const t = channel.target;
  if (t.kind === 'email') return t.password ? [t.password] : [];
  const url = new URL(t.url);
  const out = [t.url, url.pathname + url.search].filter((s) => s.length > 1);
  return t.kind === 'webhook' ? [...out, t.secret] : out;
}

/** `text` with every occurrence of each secret replaced by `***`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('***');
  return out;
}
