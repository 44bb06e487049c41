import 'server-only';
import type { Bullpen } from '@/lib/bullpen';
import type { AlertsPage } from '@/dashboard/client/alerts-view';

/** Resolved alerts listed on the page. */
const RESOLVED_SHOWN = 50;

/** What the alerts page shows: firing and resolved alerts, the channels without their secrets, the rules. */
export async function readAlertsPage(bullpen: Bullpen, now = Date.now()): Promise<AlertsPage> {
  const { config, state } = bullpen.alerts;
  const [firing, resolved, acks, silences, views, statuses, pending, rules] = await Promise.all([
    state.firing(),
    state.resolved(RESOLVED_SHOWN),
    state.acknowledgements(),
    state.silences(now),
    config.views(),
    state.channelStatuses(),
    state.pendingByChannel(),
    config.rules(),
  ]);
  return {
    firing: firing
      .sort((a, b) => b.since - a.since)
      .map((a) => ({
        key: a.key,
        rule: a.rule,
        ...(a.queue ? { queue: a.queue } : {}),
        value: a.value,
        summary: a.summary,
        path: a.path,
        since: a.since,
        lastSentAt: a.lastSentAt,
        ...(acks.has(a.key) ? { acknowledged: acks.get(a.key) } : {}),
        ...(silences.has(a.key) ? { silencedUntil: silences.get(a.key) } : {}),
      })),
    resolved: resolved.map((r) => ({
      key: r.key,
      rule: r.rule,
      ...(r.queue ? { queue: r.queue } : {}),
      value: r.value,
      summary: r.summary,
      path: r.path,
      since: r.since,
      lastSentAt: r.lastSentAt,
      resolvedAt: r.resolvedAt,
    })),
    channels: views.map((v) => ({
      ...v,
      failuresInARow: 0,
      dropped: 0,
      ...statuses.get(v.id),
      pending: pending.get(v.id) ?? 0,
    })),
    rules,
  };
}
