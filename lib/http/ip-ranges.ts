import { BlockList, isIP } from 'node:net';

/**
 * Address ranges an outbound request from a worker must not reach: they lead into the
 * worker's own host or network (metadata services at 169.254.169.254, Redis on
 * loopback, the cluster's private subnets) rather than to the public internet.
 */
type Range = readonly [network: string, prefix: number, reason: string];

const IPV4: readonly Range[] = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private (RFC 1918)'],
  ['100.64.0.0', 10, 'carrier-grade NAT (RFC 6598)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata lives here)'],
  ['172.16.0.0', 12, 'private (RFC 1918)'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation (TEST-NET-1)'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private (RFC 1918)'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation (TEST-NET-2)'],
  ['203.0.113.0', 24, 'documentation (TEST-NET-3)'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved (incl. broadcast)'],
];

const IPV6: readonly Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['100::', 64, 'discard-only'],
  ['2001::', 32, 'Teredo tunnel (its IPv4 endpoint is obfuscated)'],
  ['2001:db8::', 32, 'documentation'],
  ['64:ff9b:1::', 48, 'local-use NAT64 (RFC 8215): translates into private networks'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
];

function compile(ranges: readonly Range[], family: 'ipv4' | 'ipv6') {
  return ranges.map(([network, prefix, reason]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { list, reason };
  });
}
const V4 = compile(IPV4, 'ipv4');
const V6 = compile(IPV6, 'ipv6');

/**
 * Why `ip` may not be contacted, or undefined when it is a public address. IPv6 forms
 * that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`,
 * NAT64 `64:ff9b::a.b.c.d`) are judged by that IPv4 address, so `::ffff:127.0.0.1` is
 * loopback. Anything that is not an IP address at all is refused too.
 */
export function blockedAddressReason(ip: string): string | undefined {
  const address = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(address);
  if (family === 4) return V4.find((r) => r.list.check(address, 'ipv4'))?.reason;
  if (family !== 6) return 'not an IP address';
  const embedded = embeddedIpv4(address);
  if (embedded) {
    const reason = blockedAddressReason(embedded);
    return reason ? `${reason}, as an IPv4-in-IPv6 address` : undefined;
  }
  return V6.find((r) => r.list.check(address, 'ipv6'))?.reason;
}

/**
 * The IPv4 address inside an IPv6 address that carries one, or undefined:
 * IPv4-mapped `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96`, IPv4-compatible
 * `::/96`, well-known NAT64 `64:ff9b::/96` (all with the IPv4 address in the last 32
 * bits) and 6to4 `2002::/16` (in bits 16-47). A request to any of these reaches that
 * IPv4 host, so it is judged by the IPv4 rules.
 */
export function embeddedIpv4(ipv6: string): string | undefined {
  const groups = expandIpv6(ipv6);
  if (!groups) return undefined;
  const allZero = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  const dotted = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
  if (groups[0] === 0x2002) return dotted(groups[1], groups[2]);
  const mapped = allZero(0, 5) && groups[5] === 0xffff;
  const translated = allZero(0, 4) && groups[4] === 0xffff && groups[5] === 0;
  const compatible = allZero(0, 6) && (groups[6] !== 0 || groups[7] > 1);
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && allZero(2, 6);
  if (!mapped && !translated && !compatible && !nat64) return undefined;
  return dotted(groups[6], groups[7]);
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included), or undefined. */
function expandIpv6(ip: string): number[] | undefined {
  let text = ip.toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const o = tail[1].split('.').map(Number);
    text = `${text.slice(0, -tail[1].length)}${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  const fill = 8 - head.length - rest.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return undefined;
  const groups = [...head, ...new Array<number>(fill).fill(0), ...rest];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}
