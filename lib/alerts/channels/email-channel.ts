import nodemailer from 'nodemailer';
import type { AlertChannel } from '../alert-channel';
import { type AlertMessage, textOf, titleOf } from '../alert-message';

type EmailTarget = Extract<AlertChannel['target'], { kind: 'email' }>;

/**
 * One mail over SMTP with nodemailer: TLS from the start when `secure`, else STARTTLS
 * whenever the server offers it. A new transport per send: alerts are rare, and a pooled
 * connection would outlive an admin's edit of the channel.
 */
export async function sendEmail(target: EmailTarget, message: AlertMessage, timeoutMs: number): Promise<void> {
  const transport = nodemailer.createTransport({
    host: target.host,
    port: target.port,
    secure: target.secure,
    auth: target.user ? { user: target.user, pass: target.password ?? '' } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    // nodemailer's own logger is off: it would print the AUTH exchange.
    logger: false,
  });
  try {
    await transport.sendMail({
      from: target.from,
      to: target.to,
      subject: titleOf(message),
      text: textOf(message),
      messageId: `<${message.id}@bullpen.alerts>`,
      headers: { 'X-Bullpen-Alert': message.id },
    });
  } finally {
    transport.close();
  }
}
