import { HttpClient } from '../../http/http-client';
import { SsrfGuard } from '../../http/ssrf-guard';
import { silentLogger } from '../../logging/logger';
import { SIGNATURE_HEADER, signPayload } from '../../webhooks/signature';
import type { AlertChannel } from '../alert-channel';
import type { AlertMessage } from '../alert-message';
import { sendEmail } from './email-channel';
import { slackBody } from './slack-channel';

/** One send's time limit, as a webhook delivery's (jobs' WEBHOOK_TIMEOUT_MS in the shipped application). */
export const CHANNEL_TIMEOUT_MS = 10_000;

/** The `x-event` of an alert webhook. */
export const ALERT_EVENT = 'bullpen.alert';

export interface ChannelSenderOptions {
  /** Hosts that may be reached although private or loopback (WEBHOOK_ALLOW_HOSTS). */
  allowHosts: readonly string[];
}

/**
 * Sends one message to one channel, once: the outbox (alert-engine.ts) retries. Slack
 * and generic webhooks go through the SSRF-guarded client that webhook deliveries use
 * (pinned DNS, no redirect followed); a generic webhook is signed as webhook-dispatch
 * signs (lib/webhooks/signature.ts). Email goes over SMTP with nodemailer.
 */
export class ChannelSender {
  private readonly http: HttpClient;

  constructor(opts: ChannelSenderOptions) {
    const guard = new SsrfGuard({ allowHosts: opts.allowHosts });
    // The client's own lines name the URL, which for Slack and many webhooks is the secret:
    // it stays silent, and the engine logs each failure with the secrets taken out.
    this.http = new HttpClient({ dispatcher: guard.dispatcher(), checkTarget: (url) => guard.check(url), logger: silentLogger });
  }

  async send(channel: AlertChannel, message: AlertMessage): Promise<void> {
    const t = channel.target;
    const policy = { maxAttempts: 1, timeoutMs: CHANNEL_TIMEOUT_MS };
    if (t.kind === 'email') return sendEmail(t, message, CHANNEL_TIMEOUT_MS);
    if (t.kind === 'slack') {
      await this.http.request(t.url, { json: slackBody(message), policy, redirect: 'manual', operation: 'alert slack' });
      return;
    }
    // Signed and sent as these exact bytes: the receiver verifies the raw body.
    const body = JSON.stringify({ id: message.id, event: ALERT_EVENT, payload: message, timestamp: new Date().toISOString() });
    await this.http.request(t.url, {
      body,
      headers: {
        'content-type': 'application/json',
        'x-webhook-id': channel.id,
        'x-delivery-id': message.id,
        'x-event': ALERT_EVENT,
        [SIGNATURE_HEADER]: signPayload(t.secret, body),
      },
      idempotencyKey: `alert:${channel.id}:${message.id}`,
      policy,
      redirect: 'manual',
      operation: 'alert webhook',
    });
  }
}
