import 'server-only';
/** What stands in for a secret part of a URL. */
export const REDACTED = '…';

/** A path segment this long, of letters and digits mixed, is taken for a token (`/services/T0/B0/XXXXXXXXXXXXXXXXXXXXXXXX`). */
const TOKEN_SEGMENT = /^(?=.*[A-Za-z])(?=.*\d)[A-Za-z0-9_~.-]{20,}$/;

/**
 * A webhook URL as every dashboard user may see it: the credentials of its userinfo
 * removed, every query value and the fragment replaced by "…" (their names kept), and
 * path segments that look like tokens replaced too. A receiver's secrets often ride in the
 * URL (`https://user:pass@…`, `?token=…`, Slack's `/services/…/<secret>`), and the
 * dashboard shows a webhook to viewers. Pure; a value that does not parse is not shown at all.
 */
export function redactWebhookUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return REDACTED;
  }
  const userinfo = url.username || url.password ? `${REDACTED}@` : '';
  const path = url.pathname
    .split('/')
    .map((segment) => (TOKEN_SEGMENT.test(decodeOr(segment)) ? REDACTED : segment))
    .join('/');
  const names = [...url.searchParams.keys()];
  const query = names.length > 0 ? `?${names.map((n) => `${encodeURIComponent(n)}=${REDACTED}`).join('&')}` : '';
  const fragment = url.hash ? `#${REDACTED}` : '';
  return `${url.protocol}//${userinfo}${url.host}${path}${query}${fragment}`;
}

function decodeOr(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
