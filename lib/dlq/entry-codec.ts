import { deadLetterEntrySchema, type DeadLetterDoc, type DeadLetterEntry, type FailureRecord, MAX_HISTORY_MESSAGE } from './entry';

/**
 * An entry as the fields of its Redis hash. The fields the scripts read (status,
 * jobType, errorClass, tenantOrg, failedAt, ...) are plain strings; the parts nothing
 * filters on (job data, payload, error) are one JSON field, so Lua never re-encodes
 * user data (cjson would turn [] into {} and round long numbers).
 */
export function toHashFields(entry: Omit<DeadLetterEntry, 'replays' | 'failures' | 'discardedBy'>): Array<string> {
  const fields: Record<string, string> = {
    id: entry.id,
    queue: entry.queue,
    originalJobId: entry.originalJobId,
    jobType: entry.jobType,
    failedAt: String(entry.failedAt),
    status: entry.status,
    source: entry.source,
    attempts: String(entry.attempts),
    errorClass: entry.error.errorClass,
    tenantOrg: entry.tenant?.orgId ?? '',
    updatedAt: String(entry.updatedAt),
    doc: toDocJson(entry),
    replays: '[]',
    replayCount: '0',
  };
  return Object.entries(fields).flat();
}

/** The `doc` field of an entry's hash: the parts nothing filters on, as one JSON text. */
export function toDocJson(entry: Pick<DeadLetterEntry, 'jobData' | 'payload' | 'error' | 'tenant'>): string {
  const doc: DeadLetterDoc = { jobData: entry.jobData, payload: entry.payload, error: entry.error, tenant: entry.tenant };
  return JSON.stringify(doc);
}

/** The entry stored in a hash, or undefined for a missing (empty) hash. */
export function fromHash(hash: Record<string, string>): DeadLetterEntry | undefined {
  if (!hash.id) return undefined;
  const doc = JSON.parse(hash.doc ?? '{}') as DeadLetterDoc;
  return deadLetterEntrySchema.parse({
    id: hash.id,
    queue: hash.queue,
    originalJobId: hash.originalJobId,
    jobType: hash.jobType,
    jobData: doc.jobData,
    payload: doc.payload,
    error: doc.error,
    attempts: Number(hash.attempts),
    failedAt: Number(hash.failedAt),
    tenant: doc.tenant,
    status: hash.status,
    source: hash.source,
    replays: JSON.parse(hash.replays || '[]'),
    // Written by the record script; an entry from before the history existed has its one failure.
    failures: hash.failures
      ? JSON.parse(hash.failures)
      : [
          {
            at: Number(hash.failedAt),
            jobId: hash.originalJobId,
            attempts: Number(hash.attempts),
            error: historyError(doc.error),
            source: hash.source,
          },
        ],
    discardedBy: hash.discardedBy || undefined,
    updatedAt: Number(hash.updatedAt),
  });
}

/** A failure's error as the history keeps it: no stack, the message cut to MAX_HISTORY_MESSAGE. */
export function historyError(error: DeadLetterEntry['error']): FailureRecord['error'] {
  return { message: error.message.slice(0, MAX_HISTORY_MESSAGE), code: error.code, errorClass: error.errorClass };
}
