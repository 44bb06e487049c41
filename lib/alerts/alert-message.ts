import type { AlertEvent, AlertEventKind } from './alert-plan';
import type { RuleName } from './alert-rules';

/** One alert in a message, as every channel renders it. */
export interface AlertMessageLine {
  kind: AlertEventKind;
  key: string;
  rule: RuleName;
  queue?: string;
  value: number;
  summary: string;
  /** When it started to hold (ISO). */
  since: string;
  /** The dashboard page that shows the evidence: absolute when BULLPEN_DASHBOARD_URL is set. */
  url: string;
}

/** What one round (or a "send a test") tells every channel: one message, however many alerts. */
export interface AlertMessage {
  /** The same on every retry and every channel: a receiver deduplicates on it. */
  id: string;
  at: string;
  test?: boolean;
  lines: AlertMessageLine[];
}

/** The message for a round's events, with links under `dashboardUrl` (none: the dashboard's own paths). */
export function messageOf(id: string, now: number, events: readonly AlertEvent[], dashboardUrl?: string): AlertMessage {
  return {
    id,
    at: new Date(now).toISOString(),
    lines: events.map(({ kind, alert }) => ({
      kind,
      key: alert.key,
      rule: alert.rule,
      ...(alert.queue ? { queue: alert.queue } : {}),
      value: alert.value,
      summary: alert.summary,
      since: new Date(alert.since).toISOString(),
      url: linkTo(alert.path, dashboardUrl),
    })),
  };
}

export function linkTo(path: string, dashboardUrl?: string): string {
  return dashboardUrl ? new URL(path, dashboardUrl.endsWith('/') ? dashboardUrl : `${dashboardUrl}/`).toString() : path;
}

const LABEL: Record<AlertEventKind, string> = { firing: 'FIRING', repeat: 'STILL FIRING', resolved: 'RESOLVED' };

/** A one-line title: what a mail's subject and a chat notification show. */
export function titleOf(message: AlertMessage): string {
  if (message.test) return '[Bullpen] Test alert: this channel works';
  const [first] = message.lines;
  if (message.lines.length === 1 && first) return `[Bullpen] ${LABEL[first.kind]}: ${first.summary}`;
  const firing = message.lines.filter((l) => l.kind !== 'resolved').length;
  return `[Bullpen] ${firing} alert(s) firing, ${message.lines.length - firing} resolved`;
}

/** Plain text, one line per alert with its queue, value and link (the mail's body). */
export function textOf(message: AlertMessage): string {
  if (message.test) return 'A test sent from the Bullpen dashboard: alerts will reach you here.\n';
  return `${message.lines
    .map((l) => `${LABEL[l.kind]}  ${l.summary}${l.queue ? `\n  queue: ${l.queue}` : ''}\n  since: ${l.since}\n  ${l.url}`)
    .join('\n\n')}\n`;
}
