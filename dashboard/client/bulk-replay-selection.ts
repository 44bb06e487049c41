import { plural } from '@/lib/text/plural';

/**
 * A bulk replay from the dashboard leaves a destructive type's dead letters alone (the
 * server refuses them, dashboard/dead-letters/dead-letters-replay.ts): each is replayed on its
 * own by an admin who types the org it deletes. The selection is split before it is
 * sent, so the page says how many were left out, and why, instead of "skipped".
 */
export interface BulkReplaySplit<T> {
  /** Entries the bulk replay is asked to replay. */
  sent: T[];
  /** Entries of a destructive type, not sent. */
  leftOut: T[];
}

export function splitBulkReplay<T extends { jobType: string }>(chosen: readonly T[], destructive: readonly string[]): BulkReplaySplit<T> {
  const refused = new Set(destructive);
  const out: BulkReplaySplit<T> = { sent: [], leftOut: [] };
  for (const c of chosen) (refused.has(c.jobType) ? out.leftOut : out.sent).push(c);
  return out;
}

/** "Left out 2 data-deletion dead letters: …", or undefined when nothing was left out. */
export function leftOutSentence(leftOut: readonly { jobType: string }[]): string | undefined {
  if (leftOut.length === 0) return undefined;
  const types = [...new Set(leftOut.map((e) => e.jobType))].sort().join(', ');
  return `Left out ${plural(leftOut.length, `${types} dead letter`)}: a type that destroys data is replayed one at a time, by an admin who types the org it acts on.`;
}
