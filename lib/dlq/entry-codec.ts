import { deadLetterEntrySchema, type DeadLetterDoc, type DeadLetterEntry, type FailureRecord, MAX_HISTORY_MESSAGE } from './entry';

/**
 * An entry as the fields of its Redis hash. The fields the scripts read (status,
 * jobType, errorClass, tenantOrg, failedAt, ...) are plain strings; the parts nothing
 * filters on are JSON, so Lua never re-encodes user data (cjson would turn [] into {}
 * and round long numbers): `payload` is the payload's JSON text ('' when the entry has
 * none), and `doc` the job data without its payload, the error and the tenant. The
 * payload is stored once, and a read of many entries can leave it out
 * (docs/dead-letters.md#payloads). `payloadText` is JSON.stringify(entry.payload).
 */
export function toHashFields(
  entry: Omit<DeadLetterEntry, 'replays' | 'failures' | 'discardedBy' | 'payloadCut'>,
  payloadText: string | undefined,
): Array<string> {
  const { doc, payload } = toDocFields(entry, payloadText);
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
    doc,
    payload,
    replays: '[]',
    replayCount: '0',
  };
  return Object.entries(fields).flat();
}

/**
 * The `doc` and `payload` fields of an entry's hash: the parts nothing filters on, the
 * payload apart (its JSON text, '' for none) and the rest as one JSON text.
 */
export function toDocFields(
  entry: Pick<DeadLetterEntry, 'jobData' | 'error' | 'tenant' | 'payloadTooLarge'>,
  payloadText: string | undefined,
): { doc: string; payload: string } {
  const doc: Omit<DeadLetterDoc, 'payload'> = {
    jobData: withoutPayload(entry.jobData),
    error: entry.error,
    tenant: entry.tenant,
    ...(entry.payloadTooLarge ? { payloadTooLarge: entry.payloadTooLarge } : {}),
  };
  return { doc: JSON.stringify(doc), payload: payloadText ?? '' };
}

/** Job data without its `payload` key: the entry's own `payload` field holds it. */
function withoutPayload(jobData: DeadLetterEntry['jobData']): DeadLetterEntry['jobData'] {
  if (!('payload' in jobData)) return jobData;
  const { payload: _payload, ...rest } = jobData;
  return rest as DeadLetterEntry['jobData'];
}

/**
 * The payload and job data of a stored entry: from the `payload` field and the doc, or
 * from the doc alone for an entry written before the payload had its own field (it kept
 * the payload twice, in `payload` and in `jobData`). A `payloadCut` field (the length of
 * a payload a read cut, dlq-read.lua) leaves the payload out and keeps its start.
 */
function payloadOf(hash: Record<string, string>, doc: DeadLetterDoc): Pick<DeadLetterEntry, 'payload' | 'jobData' | 'payloadCut'> {
  if (hash.payload === undefined) return { payload: doc.payload, jobData: doc.jobData };
  if (hash.payloadCut !== undefined) {
    return { payload: undefined, jobData: doc.jobData, payloadCut: { bytes: Number(hash.payloadCut), preview: hash.payload } };
  }
  if (hash.payload === '') return { payload: undefined, jobData: doc.jobData };
  const payload: unknown = JSON.parse(hash.payload);
  // The payload first, where the dispatcher's envelope has it.
  return { payload, jobData: Object.assign({ payload }, doc.jobData) };
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
    ...payloadOf(hash, doc),
    payloadTooLarge: doc.payloadTooLarge,
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
