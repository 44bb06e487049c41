import 'server-only';
import type { Job } from 'bullmq';
import type { Bullpen } from '@/lib/bullpen';
import { readEnvelope } from '@/lib/jobs/envelope';
import { EXPORT_MAX_ROWS, type ExportEnd } from '@/dashboard/client/export-format';
import { SCAN_CHUNK, scanChunk } from '@/dashboard/queues/job-scan';
import { formatJob, type JobStateName } from '@/dashboard/jobs/job-summary';
import { loadJobs } from '@/dashboard/queues/queue-page';
import { isFiltered, type QueueFilters } from '@/dashboard/client/queue-filters';
import { resolveQueue } from '@/dashboard/queues/queue-ref';

/** One exported job: its list row plus its payload, times as ISO strings. */
export interface JobExportRow {
  id: string;
  name: string;
  state: JobStateName;
  orgId?: string;
  workspaceId?: string;
  priority: number;
  attemptsMade: number;
  maxAttempts: number;
  createdAt: string;
  processedAt?: string;
  finishedAt?: string;
  failedReason?: string;
  /** The envelope's payload, or the data as it is for a bare or foreign job. */
  payload: unknown;
}

/** The CSV header, in row order. */
export const JOB_EXPORT_COLUMNS: ReadonlyArray<keyof JobExportRow> = [
  'id',
  'name',
  'state',
  'orgId',
  'workspaceId',
  'priority',
  'attemptsMade',
  'maxAttempts',
  'createdAt',
  'processedAt',
  'finishedAt',
  'failedReason',
  'payload',
];

/**
 * Ids a filtered export examines at most, newest first: the export's scan window (the
 * page's own scan stops at `SCAN_LIMIT`). No command of the scan holds Redis for more than
 * one range of ids or one job's data (job-scan.ts).
 */
export const EXPORT_SCAN_LIMIT = 1_000_000;
/** Job data one scan step of a filtered export examines at most: bounds the rows held before they are written. */
const EXPORT_STEP_BYTES = 16 * 1024 * 1024;

export interface JobExportOptions {
  /** @defaultValue EXPORT_MAX_ROWS */
  maxRows?: number;
  /** Jobs loaded per step: bounds memory (a job's payload may be large). @defaultValue 200 */
  pageSize?: number;
  /** Ids examined at most by a filtered export. @defaultValue EXPORT_SCAN_LIMIT */
  scanLimit?: number;
  /** Ids per range read of the scan. @defaultValue SCAN_CHUNK */
  scanChunk?: number;
}

/**
 * The jobs a queue page's filters show (its state, name and tenant; not its paging),
 * newest first, one page at a time: only one page of jobs is in memory. Stops after
 * `maxRows` rows, or, filtered, after `scanLimit` ids examined; returns how it ended.
 * Jobs move while an export runs: a job that changes state meanwhile may be missed or,
 * in the finished sets, written twice (rows are not a snapshot).
 */
export async function* exportJobPages(
  bullpen: Bullpen,
  ref: string,
  f: QueueFilters,
  opts: JobExportOptions = {},
): AsyncGenerator<JobExportRow[], ExportEnd> {
  const maxRows = opts.maxRows ?? EXPORT_MAX_ROWS;
  const pageSize = Math.max(1, opts.pageSize ?? 200);
  const resolved = await resolveQueue(bullpen, ref);
  const { queue } = resolved;
  const toRows = (jobs: Job[]) => jobs.map((j) => toExportRow(j, resolved.ref, f.state));
  let rows = 0;

  if (!isFiltered(f)) {
    let start = 0;
    while (rows < maxRows) {
      const want = Math.min(pageSize, maxRows - rows);
      const raw = await queue.getJobs([f.state], start, start + want - 1, false);
      start += want;
      const jobs = raw.filter((j): j is Job => !!j && j.id !== undefined);
      if (jobs.length) {
        rows += jobs.length;
        yield toRows(jobs);
      }
      if (raw.length < want) return { rows };
    }
    const more = (await queue.getJobs([f.state], start, start, false)).length > 0;
    return more ? { rows, cut: 'max-rows' } : { rows };
  }

  const scanLimit = opts.scanLimit ?? EXPORT_SCAN_LIMIT;
  const chunk = Math.max(1, opts.scanChunk ?? SCAN_CHUNK);
  let scanned = 0;
  let pending: string[] = [];
  const flush = async function* (ids: string[]) {
    for (let i = 0; i < ids.length; i += pageSize) {
      const jobs = await loadJobs(queue, ids.slice(i, i + pageSize));
      if (jobs.length) yield toRows(jobs);
    }
  };
  while (scanned < scanLimit) {
    const count = Math.min(chunk, scanLimit - scanned);
    const step = await scanChunk(bullpen.redis, queue, f.state, f, scanned, count, EXPORT_STEP_BYTES);
    scanned += step.read;
    pending.push(...step.ids);
    const ended = step.ended;
    if (pending.length > maxRows - rows) {
      for await (const page of flush(pending.slice(0, maxRows - rows))) {
        rows += page.length;
        yield page;
      }
      return { rows, cut: 'max-rows', scanned, scanLimit };
    }
    if (pending.length >= pageSize || ended) {
      for await (const page of flush(pending)) {
        rows += page.length;
        yield page;
      }
      pending = [];
    }
    if (ended) return { rows, scanned, scanLimit };
  }
  for await (const page of flush(pending)) {
    rows += page.length;
    yield page;
  }
  return { rows, cut: 'scan-window', scanned, scanLimit };
}

function iso(ms: number | undefined): string | undefined {
  return ms ? new Date(ms).toISOString() : undefined;
}

/** Maps a job once into its export row (the list row's fields plus the payload). */
export function toExportRow(job: Job, queueRef: string, state: JobStateName): JobExportRow {
  const s = formatJob(job, queueRef, state);
  const read = readEnvelope(job);
  return {
    id: s.id,
    name: s.name,
    state,
    orgId: s.tenant?.orgId,
    workspaceId: s.tenant?.workspaceId,
    priority: s.priority,
    attemptsMade: s.attemptsMade,
    maxAttempts: s.maxAttempts,
    createdAt: iso(s.createdAt) ?? '',
    processedAt: iso(s.processedAt),
    finishedAt: iso(s.finishedAt),
    failedReason: s.failedReason,
    payload: 'error' in read ? job.data : read.envelope.payload,
  };
}
