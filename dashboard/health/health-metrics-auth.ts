import 'server-only';
import { createHash, timingSafeEqual } from 'node:crypto';

export type BearerCheck = 'ok' | 'missing' | 'invalid';

/**
 * Checks an `Authorization` header against the metrics token. No token configured:
 * open (the scrape target sits on a private network). The comparison is of SHA-256
 * digests, so it is constant-time whatever the length of what a client sends.
 */
export function checkBearer(header: string | null | undefined, token: string | undefined): BearerCheck {
  if (token === undefined) return 'ok';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return 'missing';
  return timingSafeEqual(sha256(match[1]), sha256(token)) ? 'ok' : 'invalid';
}

/** The `WWW-Authenticate` value of a 401 (RFC 6750). */
export function bearerChallenge(check: Exclude<BearerCheck, 'ok'>): string {
  const realm = 'Bearer realm="bullpen-dashboard"';
  return check === 'missing' ? realm : `${realm}, error="invalid_token"`;
}

function sha256(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}
