import 'server-only';
import { z } from 'zod';

/** Values larger than this (as JSON, in bytes) are cut before they reach a page. */
export const MAX_VALUE_BYTES = 64 * 1024;

export const truncatedValueSchema = z.object({
  /** The value itself when small enough, else a string: the first MAX bytes of its JSON. */
  value: z.unknown(),
  truncated: z.boolean(),
  /** Size of the whole value as JSON, in bytes. */
  bytes: z.number().int().min(0),
});
export type TruncatedValue = z.infer<typeof truncatedValueSchema>;

/**
 * Makes any job value safe to render: a value whose JSON is over `maxBytes` is
 * replaced by the start of that JSON and flagged, so a 50 MB payload or return
 * value never breaks the page (or the RSC payload). Unserialisable values (cycles,
 * BigInt) become a note instead of throwing.
 */
export function truncateValue(value: unknown, maxBytes = MAX_VALUE_BYTES): TruncatedValue {
  if (value === undefined || value === null) return { value: value ?? null, truncated: false, bytes: 0 };
  let json: string;
  try {
    json = JSON.stringify(value) ?? 'null';
  } catch (err) {
    return { value: `[unserialisable: ${(err as Error).message}]`, truncated: true, bytes: 0 };
  }
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes <= maxBytes) return { value, truncated: false, bytes };
  return { value: cutUtf8(json, maxBytes), truncated: true, bytes };
}

/** A string cut to at most `maxBytes` UTF-8 bytes without splitting a character. */
export function truncateText(text: string, maxBytes: number): { text: string; truncated: boolean } {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return { text, truncated: false };
  return { text: cutUtf8(text, maxBytes), truncated: true };
}

function cutUtf8(s: string, maxBytes: number): string {
  const buf = Buffer.from(s, 'utf8').subarray(0, maxBytes);
  // A cut through a multi-byte character decodes to U+FFFD at the end: drop it.
  return buf.toString('utf8').replace(/\uFFFD+$/, '');
}
