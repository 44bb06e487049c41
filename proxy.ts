import { NextResponse, type NextRequest } from 'next/server';
import { MAX_ACTION_BODY_BYTES, isMultipartActionBody, isPlainActionBody } from '@/dashboard/http/action-body';
import { CLIENT_HEADER, CLIENT_TOKEN_ENV, decodeClientHeader } from '@/dashboard/http/client-header';
import { STRICT_TRANSPORT_SECURITY, contentSecurityPolicy, newNonce } from '@/dashboard/http/content-security-policy';

/**
 * Runs before every page, route and server action, prefetches included. First it refuses
 * what Next.js would fail on with a 500: a path with a malformed percent-escape, and a
 * server action body React's decoder cannot take (dashboard/http/action-body.ts). Then a
 * nonce-based script CSP, as Next.js documents it (the nonce in the request's
 * Content-Security-Policy header is what Next stamps on its own scripts, so every page
 * renders dynamically), and HSTS when the browser reached us over https as the
 * dashboard's server resolved it (scripts/web-server.ts; a client's own
 * X-Forwarded-Proto is not believed). A refusal carries the same headers.
 */
export async function proxy(request: NextRequest): Promise<NextResponse> {
  const nonce = newNonce();
  const csp = contentSecurityPolicy(nonce, process.env.NODE_ENV === 'development');
  const refused = await refusal(request);
  let response: NextResponse;
  if (refused) {
    response = NextResponse.json({ code: refused.code, message: refused.message }, { status: refused.status });
  } else {
    const requestHeaders = new Headers(request.headers);
    requestHeaders.set('x-nonce', nonce);
    requestHeaders.set('content-security-policy', csp);
    response = NextResponse.next({ request: { headers: requestHeaders } });
  }
  response.headers.set('content-security-policy', csp);
  const client = decodeClientHeader(request.headers.get(CLIENT_HEADER), process.env[CLIENT_TOKEN_ENV]);
  if (client?.https) response.headers.set('strict-transport-security', STRICT_TRANSPORT_SECURITY);
  return response;
}

interface Refusal {
  status: 400 | 413;
  code: 'VALIDATION' | 'PAYLOAD_TOO_LARGE';
  message: string;
}

/** Why Next.js should not see this request, or undefined. */
async function refusal(request: NextRequest): Promise<Refusal | undefined> {
  // Next decodes each dynamic segment with decodeURIComponent, which throws on `%ZZ`.
  try {
    decodeURIComponent(request.nextUrl.pathname);
  } catch {
    return { status: 400, code: 'VALIDATION', message: 'Malformed percent-escape in the path' };
  }
  if (request.method !== 'POST') return undefined;
  // What Next takes for a server action (its server-action-request-meta): a Next-Action
  // header, or a multipart body (a form posted before hydration); a URL-encoded body is
  // never decoded as one.
  const type = request.headers.get('content-type') ?? '';
  const fetchAction = request.headers.has('next-action');
  const multipart = type.startsWith('multipart/form-data');
  if (type === 'application/x-www-form-urlencoded' || !(fetchAction || multipart)) return undefined;
  const declared = Number(request.headers.get('content-length') ?? 0);
  const body = declared > MAX_ACTION_BODY_BYTES ? undefined : await request.clone().arrayBuffer();
  if (!body || body.byteLength > MAX_ACTION_BODY_BYTES) {
    return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: `A server action's body is at most ${MAX_ACTION_BODY_BYTES} bytes` };
  }
  const malformed: Refusal = { status: 400, code: 'VALIDATION', message: 'Malformed server action arguments' };
  if (!multipart) return isPlainActionBody(new TextDecoder().decode(body)) ? undefined : malformed;
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': type } }).formData();
  } catch {
    return malformed;
  }
  const fields = [...form.entries()].map(([name, value]) => [name, typeof value === 'string' ? value : null] as const);
  return isMultipartActionBody(fields, fetchAction) ? undefined : malformed;
}

export const config = {
  // Every request but static files: a prefetch (`Purpose: prefetch`, `Next-Router-Prefetch`)
  // too, since Next's documented matcher that skips them would leave a prefetched page
  // without its CSP and let an action body past the check above.
  matcher: ['/((?!_next/static|_next/image|favicon.ico|icon.svg).*)'],
};
