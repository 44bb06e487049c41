import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header a delivery's signature travels in. */
export const SIGNATURE_HEADER = 'X-Signature';
const PREFIX = 'sha256=';

/**
 * `sha256=<hex>`: HMAC-SHA256 of the exact body bytes under the webhook's secret. The
 * receiver must hash the raw bytes it received, not a re-serialised parse of them:
 * JSON re-encoding changes spacing and key order, and with them the signature.
 */
export function signPayload(secret: string, body: string | Uint8Array): string {
  return PREFIX + createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * Whether `header` is the signature of `body` under `secret`. The comparison takes the
 * same time wherever the first differing byte is, so an attacker cannot learn the right
 * signature byte by byte from response times.
 */
export function verifySignature(secret: string, body: string | Uint8Array, header: string | null | undefined): boolean {
  if (typeof header !== 'string' || !header.startsWith(PREFIX)) return false;
  const given = Buffer.from(header.slice(PREFIX.length).trim(), 'hex');
  const expected = Buffer.from(signPayload(secret, body).slice(PREFIX.length), 'hex');
  // Lengths differ only for a malformed header; timingSafeEqual requires equal lengths.
  if (given.length !== expected.length) return false;
  return timingSafeEqual(given, expected);
}
