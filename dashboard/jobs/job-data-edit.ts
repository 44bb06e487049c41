import 'server-only';
import { type Role, roleAtLeast } from '@/dashboard/auth/roles';
import type { Bullpen } from '@/lib/bullpen';
import { AppError } from '@/lib/errors/app-error';
import { readEnvelope } from '@/lib/jobs/envelope';
import { stableJson } from '@/lib/jobs/locked-fields';
import { assertWithinLimit } from '@/lib/jobs/payload-limit';
import { LuaCommand } from '@/lib/redis/lua-command';
import { findJob } from './find-job';
import { LUA } from './lua';
import { type PayloadChange, payloadChanges } from './payload-changes';
import { validatePayloadEdit } from './payload-edit';
import { resolveQueue } from '@/dashboard/queues/queue-ref';

/** The states whose jobs no worker has read yet: the ones whose data an operator may mend. */
export const EDITABLE_STATES = ['waiting', 'delayed', 'prioritized'] as const;
export type EditableState = (typeof EDITABLE_STATES)[number];

const EDIT_SCRIPT = new LuaCommand('job-edit-data', LUA['job-edit-data']);

export interface JobDataEditRequest {
  /** The edited payload (parsed JSON). */
  payload: unknown;
  /** The payload the editor started from: an edit of data someone changed meanwhile is refused. */
  original: unknown;
  /** Who edits, for the job's log. */
  by: string;
  /** Their role: a destructive type's data is an admin's to change (docs/security.md). */
  role: Role;
}

export interface JobDataEdit {
  jobId: string;
  /** The state the job was edited in. */
  state: EditableState;
  /** What changed, value by value, bounded for the audit entry. */
  changes: PayloadChange[];
}

/**
 * Mends the payload of a job that has not started (bull-board's "update data", Oban
 * Web's edit of a job that is not executing): validated as edit-and-replay is (the
 * type's schema, the same locked fields, BULLPEN_MAX_PAYLOAD_BYTES), then written by one script that checks the
 * job is still waiting, delayed or prioritized, holds no lock, and has the data the
 * editor started from (dashboard/jobs/lua/job-edit-data.lua). A job that started
 * meanwhile is refused (CONFLICT) and keeps its data: never half-edited. BullMQ's
 * `job.updateData` checks no state, so it is not used. The envelope (tenant, request
 * id, idempotency key) is kept; only its payload changes.
 */
export async function editJobData(bullpen: Bullpen, queueName: string, id: string, edit: JobDataEditRequest): Promise<JobDataEdit> {
  const resolved = await resolveQueue(bullpen, queueName);
  const type = resolved.type;
  if (!type) {
    throw new AppError('VALIDATION', `${resolved.ref} is a foreign queue: its jobs have no schema here to check an edit against`);
  }
  if (bullpen.jobs.get(type).destructive && !roleAtLeast(edit.role, 'admin')) {
    throw new AppError('FORBIDDEN', `${type} destroys data: only an admin may change what one of its jobs does`, {
      type,
      destructive: true,
    });
  }
  const queue = resolved.queue;
  const job = await findJob(queue, id);
  if (!job?.id) throw new AppError('NOT_FOUND', `No job ${id} in ${type}`, { queue: type, jobId: id });
  const jobKey = queue.toKey(job.id);
  const raw = await bullpen.redis.hget(jobKey, 'data');
  if (raw === null) throw new AppError('NOT_FOUND', `No job ${id} in ${type}`, { queue: type, jobId: id });
  const data = parseStored(raw);
  const read = readEnvelope({ id: job.id, data, timestamp: job.timestamp, opts: job.opts });
  if ('error' in read) throw new AppError('VALIDATION', `Job ${id}'s data cannot be edited: ${read.error}`);
  const current = read.envelope.payload;
  if (stableJson(current) !== stableJson(edit.original)) {
    throw new AppError(
      'CONFLICT',
      `Job ${id}'s data changed since you opened the editor; nothing was written. Reload the page and edit again.`,
    );
  }
  const payload = validatePayloadEdit(bullpen.jobs, type, current, edit.payload);
  const changes = payloadChanges(current, payload);
  if (changes.length === 0) throw new AppError('VALIDATION', 'The edit changes nothing; nothing was written');
  const next = read.bare ? payload : { ...(data as Record<string, unknown>), payload };
  // The same bound as at dispatch and at pickup: a worker would refuse the job unread.
  assertWithinLimit(type, next, bullpen.config.BULLPEN_MAX_PAYLOAD_BYTES);
  const line = `${new Date().toISOString()} data edited by ${edit.by} from the dashboard: ${changes.map((c) => c.path).join(', ')}`;
  const [ok, detail] = (await EDIT_SCRIPT.run(
    bullpen.redis,
    [
      jobKey,
      queue.toKey('wait'),
      queue.toKey('paused'),
      queue.toKey('delayed'),
      queue.toKey('prioritized'),
      `${jobKey}:lock`,
      `${jobKey}:logs`,
    ],
    [job.id, raw, JSON.stringify(next), line],
  )) as [number, string?];
  if (ok === -1) throw new AppError('NOT_FOUND', `Job ${id} was removed meanwhile; nothing was written`, { queue: type, jobId: id });
  if (ok === 0) {
    if (detail === 'changed') {
      throw new AppError('CONFLICT', `Job ${id}'s data was changed by someone else just now; nothing was written. Reload and edit again.`);
    }
    const state = await queue.getJobState(job.id);
    throw new AppError(
      'CONFLICT',
      `Job ${id} is ${state === 'unknown' ? 'no longer waiting' : state} now, so its data was not changed: only a waiting, delayed or prioritized job can be edited${state === 'active' ? ' (it started meanwhile)' : ''}.`,
      { state },
    );
  }
  return { jobId: job.id, state: detail as EditableState, changes };
}

function parseStored(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new AppError('VALIDATION', 'The job data stored in Redis is not JSON; it cannot be edited here');
  }
}
