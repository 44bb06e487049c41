import 'server-only';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Next.js runs a server action only in the part of the build that holds the page it was
 * posted to. Posted to another page's path, the action is forwarded: Next posts it again,
 * over HTTP to this same server, to a page that holds it, marked with this header, and
 * copies the answer's headers and body into its own, but not its status. A 401 or 403
 * would reach the browser as a 200 (docs/security.md).
 */
export const ACTION_FORWARDED_HEADER = 'x-action-forwarded';

/** The status of a forwarded action's answer, carried back to the first request in a response header. */
export const FORWARDED_STATUS_HEADER = 'x-bullpen-forwarded-status';

/**
 * Makes the first request answer with the forwarded action's status: the forwarded
 * request's response names its status in FORWARDED_STATUS_HEADER, which Next copies into
 * the first response with the other headers; when that response is about to be sent as a
 * 200, it is sent with the carried status instead (an error only: 4xx or 5xx). The header
 * never leaves a first response.
 */
export function relayForwardedActionStatus(req: IncomingMessage, res: ServerResponse): void {
  const forwarded = req.headers[ACTION_FORWARDED_HEADER] !== undefined;
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, statusCode: number, ...rest: unknown[]) {
    const carried = Number(res.getHeader(FORWARDED_STATUS_HEADER));
    res.removeHeader(FORWARDED_STATUS_HEADER);
    const status = statusCode === 200 && carried >= 400 && carried <= 599 ? carried : statusCode;
    // A reason phrase given for the 200 ("OK") would not fit: Node picks the carried status's own.
    if (status !== statusCode && typeof rest[0] === 'string') rest.shift();
    if (forwarded) res.setHeader(FORWARDED_STATUS_HEADER, String(status));
    return (writeHead as (this: ServerResponse, ...args: unknown[]) => ServerResponse).call(this, status, ...rest);
  } as ServerResponse['writeHead'];
}
