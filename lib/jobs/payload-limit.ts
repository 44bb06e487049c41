import { AppError } from '../errors/app-error';

/**
 * BULLPEN_MAX_PAYLOAD_BYTES's default: the most bytes of JSON a job's data may take as
 * BullMQ stores it (docs/producers.md#payload-size). Real jobs carry ids and small
 * documents; a large body belongs in a store the job names.
 */
export const DEFAULT_MAX_PAYLOAD_BYTES = 512 * 1024;
/** The smallest and largest limit the setting accepts. */
export const MIN_MAX_PAYLOAD_BYTES = 1024;
export const MAX_MAX_PAYLOAD_BYTES = 64 * 1024 * 1024;

/** How much of an over-limit job's JSON its dead letter keeps. */
export const PAYLOAD_PREVIEW_BYTES = 2 * 1024;

/**
 * The UTF-8 byte length of `json` when it is over `limit`, else undefined. A UTF-16 code
 * unit takes 1 to 3 bytes, so the string's length settles most cases without encoding.
 */
export function bytesOverLimit(json: string, limit: number): number | undefined {
  if (json.length * 3 <= limit) return undefined;
  const bytes = Buffer.byteLength(json, 'utf8');
  return bytes > limit ? bytes : undefined;
}

/** The first whole characters of `text` that fit in `maxBytes` of UTF-8. */
export function previewOf(text: string, maxBytes = PAYLOAD_PREVIEW_BYTES): string {
  const head = text.slice(0, maxBytes);
  if (head.length * 3 <= maxBytes) return head;
  const { read } = new TextEncoder().encodeInto(head, new Uint8Array(maxBytes));
  return head.slice(0, read);
}

/**
 * The refusal of a job whose data is over the limit: at dispatch, at a replay and at
 * pickup (a plain producer's job), always the same code and words.
 */
export function payloadTooLarge(type: string, bytes: number, limit: number): AppError {
  const message = `The ${type} job's data is ${bytes.toLocaleString('en')} bytes of JSON, over the limit of ${limit.toLocaleString('en')} bytes (BULLPEN_MAX_PAYLOAD_BYTES)`;
  // One issue on the payload itself (an empty path), as a schema's are: a form shows it under its payload field.
  return new AppError('PAYLOAD_TOO_LARGE', message, { bytes, limit, issues: [{ path: [], message }] });
}

/** Throws PAYLOAD_TOO_LARGE when `data` serialized as BullMQ stores it is over `limit`. */
export function assertWithinLimit(type: string, data: unknown, limit: number): void {
  const bytes = bytesOverLimit(JSON.stringify(data) ?? '', limit);
  if (bytes !== undefined) throw payloadTooLarge(type, bytes, limit);
}
