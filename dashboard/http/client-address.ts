import 'server-only';
import { BlockList, isIP } from 'node:net';

import type { ClientAddress } from './client-header';

/**
 * The proxies whose forwarding headers the dashboard believes (TRUSTED_PROXIES: IPs or
 * CIDRs). A header from anyone else is the client's own word and is ignored, so rotating
 * X-Forwarded-For neither dodges the sign-in throttle nor writes a false IP in the audit log.
 */
export class TrustedProxies {
  private readonly list = new BlockList();
  readonly empty: boolean;

  constructor(entries: readonly string[]) {
    for (const raw of entries) {
      const [ip, prefix] = raw.trim().split('/');
      const family = isIP(ip);
      if (!family) throw new RangeError(`TRUSTED_PROXIES entry "${raw}" is not an IP address or CIDR range`);
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (prefix === undefined) {
        this.list.addAddress(ip, type);
        continue;
      }
      const bits = Number(prefix);
      if (!Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) {
        throw new RangeError(`TRUSTED_PROXIES entry "${raw}": the prefix length must be 0..${family === 4 ? 32 : 128}`);
      }
      this.list.addSubnet(ip, bits, type);
    }
    this.empty = entries.length === 0;
  }

  has(ip: string): boolean {
    const address = normalize(ip);
    const family = isIP(address);
    return family !== 0 && this.list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/**
 * The client of a request that reached us from `peer` (the socket's remote address)
 * with these forwarding headers. X-Forwarded-For is walked from the right, past trusted
 * proxies only: the first address a trusted proxy did not add itself is the client.
 */
export function resolveClient(
  peer: string | undefined,
  headers: { forwardedFor?: string; forwardedProto?: string },
  trusted: TrustedProxies,
  socketEncrypted = false,
): ClientAddress {
  const direct = normalize(peer ?? '') || 'unknown';
  if (!trusted.has(direct)) return { ip: direct, https: socketEncrypted };
  const hops = (headers.forwardedFor ?? '')
    .split(',')
    .map((h) => normalize(h))
    .filter((h) => isIP(h) !== 0);
  let ip = direct;
  for (let i = hops.length - 1; i >= 0; i--) {
    ip = hops[i];
    if (!trusted.has(ip)) break;
  }
  const proto = headers.forwardedProto?.split(',')[0]?.trim().toLowerCase();
  return { ip, https: proto ? proto === 'https' : socketEncrypted };
}

/** Lower case, without IPv6 brackets or zone, and `::ffff:a.b.c.d` as `a.b.c.d`. */
function normalize(ip: string): string {
  const a = ip
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '');
  return a.startsWith('::ffff:') && isIP(a.slice(7)) === 4 ? a.slice(7) : a;
}
