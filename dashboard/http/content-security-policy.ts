import 'server-only';
/**
 * The dashboard's Content-Security-Policy: scripts only from this origin and with this
 * response's nonce ('strict-dynamic' lets those load the chunks they import), no
 * plugins, no framing, no foreign form targets. Styles keep 'unsafe-inline' for React's
 * style attributes; the policy's aim is scripts (docs/security.md).
 */
export function contentSecurityPolicy(nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    // Next's dev server evaluates modules with eval(); production never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** A fresh nonce: 16 random bytes, base64 (Web Crypto, so it runs wherever proxy.ts does). */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

/** HSTS for a dashboard reached over https: a year, subdomains left to their owners. */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';
