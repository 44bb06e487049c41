import type { ChannelView } from '@/lib/alerts/alert-channel';
import type { AlertRules } from '@/lib/alerts/alert-rules';

/** A firing alert as the alerts page shows it. */
export interface FiringRow {
  key: string;
  rule: string;
  queue?: string;
  value: number;
  summary: string;
  /** The dashboard page with the evidence. */
  path: string;
  since: number;
  lastSentAt: number;
  acknowledged?: { by: string; at: number };
  silencedUntil?: number;
}

export interface ResolvedRow extends Omit<FiringRow, 'acknowledged' | 'silencedUntil'> {
  resolvedAt: number;
}

/** A channel as anyone may see it, with how its deliveries go. */
export interface ChannelRow extends ChannelView {
  lastOkAt?: number;
  lastFailedAt?: number;
  lastError?: string;
  failuresInARow: number;
  dropped: number;
  /** Messages waiting in the outbox for it. */
  pending: number;
}

export interface AlertsPage {
  firing: FiringRow[];
  resolved: ResolvedRow[];
  channels: ChannelRow[];
  rules: AlertRules;
}

/** Silences an operator may choose, in minutes: 15 min to a week. */
export const SILENCE_MINUTES = [15, 60, 240, 1_440, 10_080] as const;
