import 'server-only';
import type { Bullpen } from '@/lib/bullpen';
import type { DeadLetterEntry } from '@/lib/dlq/entry';
import { checkDestructiveStart, type Starter } from '@/dashboard/jobs/job-start-rules';

/**
 * One dead letter's replay from the dashboard, as-is or edited. The tenant and resource
 * fields are locked to the original by the store (lib/jobs/locked-fields.ts), so an
 * operator replays as before; a destructive type needs an admin and the typed org id
 * (dashboard/jobs/job-start-rules.ts). The store re-checks everything else.
 */
export async function replayDeadLetter(
  bullpen: Bullpen,
  id: string,
  opts: { by: string; expectedReplays: number; payload?: unknown },
  who: Starter,
): Promise<DeadLetterEntry> {
  const entry = await bullpen.dlq.get(id);
  if (entry) checkDestructiveStart(bullpen.jobs, entry.jobType, entry.tenant, opts.payload ?? entry.payload, who);
  return bullpen.dlq.replay(id, opts);
}

/** Why a bulk replay from the dashboard leaves `entry` alone: a destructive type is replayed one at a time by an admin. */
export function refusedInBulk(bullpen: Bullpen, entry: Pick<DeadLetterEntry, 'jobType'>): string | undefined {
  return bullpen.jobs.has(entry.jobType) && bullpen.jobs.get(entry.jobType).destructive
    ? `${entry.jobType} destroys data: an admin replays it on its own page, typing the org id`
    : undefined;
}
