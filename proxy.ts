import { NextResponse, type NextRequest } from 'next/server';
import { isPlainActionBody } from '@/lib/http/action-body';
import { CLIENT_HEADER, CLIENT_TOKEN_ENV, decodeClientHeader } from '@/lib/http/client-header';
import { STRICT_TRANSPORT_SECURITY, contentSecurityPolicy, newNonce } from '@/lib/http/content-security-policy';

/**
 * Runs before every page and route: refuses a server action whose text body holds
 * references no page of ours sends (lib/http/action-body.ts); then a nonce-based script CSP, as Next.js documents it
 * (the nonce in the request's Content-Security-Policy header is what Next stamps on its
 * own scripts, so every page renders dynamically), and HSTS when the browser reached us
 * over https as the dashboard's server resolved it (scripts/web-server.ts; a client's own
 * X-Forwarded-Proto is not believed).
 */
export async function proxy(request: NextRequest): Promise<NextResponse> {
  if (
    request.method === 'POST' &&
    request.headers.has('next-action') &&
    (request.headers.get('content-type') ?? '').startsWith('text/plain')
  ) {
    // A malformed action body would fail in React's decoder as a 500: refuse it as the bad request it is.
    if (!isPlainActionBody(await request.clone().text())) {
      return NextResponse.json({ code: 'VALIDATION', message: 'Malformed server action arguments' }, { status: 400 });
    }
  }
  const nonce = newNonce();
  const csp = contentSecurityPolicy(nonce, process.env.NODE_ENV === 'development');
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set('x-nonce', nonce);
  requestHeaders.set('content-security-policy', csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set('content-security-policy', csp);
  const client = decodeClientHeader(request.headers.get(CLIENT_HEADER), process.env[CLIENT_TOKEN_ENV]);
  if (client?.https) response.headers.set('strict-transport-security', STRICT_TRANSPORT_SECURITY);
  return response;
}

export const config = {
  // Static files and prefetches carry no inline script: leave them cacheable.
  matcher: [
    {
      source: '/((?!_next/static|_next/image|favicon.ico|icon.svg).*)',
      missing: [
        { type: 'header', key: 'next-router-prefetch' },
        { type: 'header', key: 'purpose', value: 'prefetch' },
      ],
    },
  ],
};
