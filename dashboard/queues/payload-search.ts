import 'server-only';
import { z } from 'zod';
import type { Bullpen } from '@/lib/bullpen';
import { scanChunk } from './job-scan';
import { formatJob, jobSummarySchema } from '@/dashboard/jobs/job-summary';
import {
  SEARCH_MAX_MATCHES,
  SEARCH_STEP,
  SEARCH_STEP_BYTES,
  SEARCH_WINDOW,
  type SearchStepParams,
} from '@/dashboard/client/payload-search-params';
import { readStateCounts } from './queue-overview';
import { loadJobs } from './queue-page';
import { resolveQueue } from './queue-ref';

export const searchStepSchema = z.object({
  /** Ids of the state examined so far, this step included: the next step's `from`. */
  scanned: z.number().int(),
  /** Ids the whole search examines: the newest SEARCH_WINDOW, or fewer when the state holds fewer. */
  window: z.number().int(),
  /** No further step: the window or the state ended. */
  done: z.boolean(),
  /** The state holds more jobs than the window: older ones are not searched. */
  capped: z.boolean(),
  /** At most SEARCH_MAX_MATCHES matches of this step, newest first. */
  jobs: z.array(jobSummarySchema),
  /** This step matched more than it returns. */
  more: z.boolean(),
});
export type SearchStep = z.infer<typeof searchStepSchema>;

/**
 * One step of a payload search: ids [from, from + SEARCH_STEP) of the state, newest
 * first, or fewer when their data reaches SEARCH_STEP_BYTES, matched by job-scan.ts
 * (substring of the data, `path=value` on the decoded data, plus the page's name and
 * tenant filters), the matches mapped to list rows. The client calls it again with
 * `from = scanned` until `done`, showing progress and stopping when asked; no Redis
 * command of a step holds Redis for more than one range of ids or one job's data.
 */
export async function readSearchStep(bullpen: Bullpen, ref: string, p: SearchStepParams): Promise<SearchStep> {
  const resolved = await resolveQueue(bullpen, ref);
  const counts = await readStateCounts(resolved.queue);
  const total = counts[p.state] ?? 0;
  const window = Math.min(SEARCH_WINDOW, total);
  const from = Math.min(p.from, window);
  const count = Math.min(SEARCH_STEP, window - from);
  const step =
    count > 0
      ? await scanChunk(
          bullpen.redis,
          resolved.queue,
          p.state,
          { name: p.name, tenant: p.tenant, contains: p.q, path: p.path, value: p.value },
          from,
          count,
          SEARCH_STEP_BYTES,
        )
      : { read: 0, ids: [], bytes: 0, ended: true };
  const scanned = from + step.read;
  const jobs = await loadJobs(resolved.queue, step.ids.slice(0, SEARCH_MAX_MATCHES));
  const outcomes = resolved.type ? bullpen.jobs : undefined;
  return {
    scanned,
    window,
    done: scanned >= window || step.ended,
    capped: total > SEARCH_WINDOW,
    jobs: jobs.map((j) => formatJob(j, resolved.ref, p.state, outcomes)),
    more: step.ids.length > SEARCH_MAX_MATCHES,
  };
}
