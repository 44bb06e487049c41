import 'server-only';
/**
 * Who is on the other end of a dashboard request, as the dashboard's server resolved it
 * (dashboard/http/client-address.ts), and the header that carries it to the app. No Node
 * imports: proxy.ts reads it too.
 */
export interface ClientAddress {
  /** The client's IP: the socket's peer, or the first untrusted hop of X-Forwarded-For behind trusted proxies. */
  ip: string;
  /** Whether the browser's connection was https (directly, or as a trusted proxy says). */
  https: boolean;
}

/**
 * The request header through which the dashboard's server (scripts/web-server.ts) hands
 * the resolved client to the app. It is stripped from every incoming request and set
 * again with a per-process token, so a browser cannot forge it; under a plain
 * `next start` the token is unset and the header is ignored.
 */
export const CLIENT_HEADER = 'x-bullpen-client';
export const CLIENT_TOKEN_ENV = 'BULLPEN_CLIENT_TOKEN';

export function encodeClientHeader(client: ClientAddress, token: string): string {
  return `${token} ${client.ip} ${client.https ? 'https' : 'http'}`;
}

/** The client from the header, or undefined when it is absent or not ours. */
export function decodeClientHeader(value: string | null | undefined, token: string | undefined): ClientAddress | undefined {
  if (!value || !token) return undefined;
  const [given, ip, proto] = value.split(' ');
  if (!given || !ip || !proto) return undefined;
  if (!sameText(given, token)) return undefined;
  return { ip, https: proto === 'https' };
}

/** Compares in time independent of where the texts differ. */
function sameText(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}
