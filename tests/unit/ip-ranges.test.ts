import { describe, expect, it } from 'vitest';

/**
 * The SSRF guard's address table, range by range. The module is imported inside the
 * tests, not at the top: a table that fails to build (a malformed range) then fails
 * these tests instead of leaving a file with no tests in it.
 */
const load = () => import('@/lib/http/ip-ranges');

describe('blocked address ranges', () => {
  it('names the range of the first and last address of every IPv4 range', async () => {
    const { blockedAddressReason } = await load();
    const table: Array<[string, string, string]> = [
      ['0.0.0.0', '0.255.255.255', 'unspecified ("this network")'],
      ['10.0.0.0', '10.255.255.255', 'private (RFC 1918)'],
      ['100.64.0.0', '100.127.255.255', 'carrier-grade NAT (RFC 6598)'],
      ['127.0.0.0', '127.255.255.255', 'loopback'],
      ['169.254.0.0', '169.254.255.255', 'link-local (cloud metadata lives here)'],
      ['172.16.0.0', '172.31.255.255', 'private (RFC 1918)'],
      ['192.0.0.0', '192.0.0.255', 'IETF protocol assignments'],
      ['192.0.2.0', '192.0.2.255', 'documentation (TEST-NET-1)'],
      ['192.88.99.0', '192.88.99.255', '6to4 relay anycast'],
      ['192.168.0.0', '192.168.255.255', 'private (RFC 1918)'],
      ['198.18.0.0', '198.19.255.255', 'benchmarking'],
      ['198.51.100.0', '198.51.100.255', 'documentation (TEST-NET-2)'],
      ['203.0.113.0', '203.0.113.255', 'documentation (TEST-NET-3)'],
      ['224.0.0.0', '239.255.255.255', 'multicast'],
      ['240.0.0.0', '255.255.255.255', 'reserved (incl. broadcast)'],
    ];
    for (const [first, last, reason] of table) {
      expect(blockedAddressReason(first), first).toBe(reason);
      expect(blockedAddressReason(last), last).toBe(reason);
    }
    for (const pub of [
      '1.0.0.0',
      '9.255.255.255',
      '11.0.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.0.1.0',
      '192.0.3.0',
      '192.88.98.255',
      '198.17.255.255',
      '198.20.0.0',
      '223.255.255.255',
    ]) {
      expect(blockedAddressReason(pub), pub).toBeUndefined();
    }
  });

  it('names the range of every IPv6 range', async () => {
    const { blockedAddressReason } = await load();
    const table: Array<[string, string]> = [
      ['::', 'unspecified'],
      ['::1', 'loopback'],
      ['100::', 'discard-only'],
      ['100::ffff:ffff:ffff:ffff', 'discard-only'],
      ['2001::1', 'Teredo tunnel (its IPv4 endpoint is obfuscated)'],
      ['2001:db8::1', 'documentation'],
      ['64:ff9b:1::1', 'local-use NAT64 (RFC 8215): translates into private networks'],
      ['fc00::1', 'unique-local'],
      ['fdff::1', 'unique-local'],
      ['fe80::1', 'link-local'],
      ['febf::1', 'link-local'],
      ['fec0::1', 'site-local (deprecated)'],
      ['ff00::1', 'multicast'],
    ];
    for (const [address, reason] of table) expect(blockedAddressReason(address), address).toBe(reason);
    for (const pub of ['100:0:0:1::', '2001:1::1', '2001:db9::1', 'fbff::1', 'fe7f::1', '2606:4700:4700::1111']) {
      expect(blockedAddressReason(pub), pub).toBeUndefined();
    }
  });

  it('judges an IPv6 address that carries an IPv4 address by the IPv4 rules', async () => {
    const { blockedAddressReason } = await load();
    expect(blockedAddressReason('::ffff:192.168.0.1')).toBe('private (RFC 1918), as an IPv4-in-IPv6 address');
    expect(blockedAddressReason('::10.0.0.1')).toBe('private (RFC 1918), as an IPv4-in-IPv6 address');
    expect(blockedAddressReason('::ffff:8.8.8.8')).toBeUndefined();
  });
});

describe('embeddedIpv4', () => {
  it('reads the last 32 bits of mapped, translated, compatible and NAT64 forms, and bits 16-47 of 6to4', async () => {
    const { embeddedIpv4 } = await load();
    expect(embeddedIpv4('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('0:0:0:0:0:ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('0:0:0:0:0::ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('::FFFF:7F00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('::ffff:0:a00:1')).toBe('10.0.0.1');
    expect(embeddedIpv4('::2')).toBe('0.0.0.2');
    expect(embeddedIpv4('::1:0')).toBe('0.1.0.0');
    expect(embeddedIpv4('::8.8.8.8')).toBe('8.8.8.8');
    expect(embeddedIpv4('64:ff9b::a00:1')).toBe('10.0.0.1');
    expect(embeddedIpv4('2002:c0a8:101::')).toBe('192.168.1.1');
  });

  it('reads nothing from other addresses', async () => {
    const { embeddedIpv4 } = await load();
    for (const ip of [
      '::',
      '::1',
      '::ffff:1:102:304',
      '1::ffff:7f00:1',
      '64:ff9a::a00:1',
      '65:ff9b::a00:1',
      '64:ff9b:0:0:0:1:a00:1',
      '2001:db8::1',
    ]) {
      expect(embeddedIpv4(ip), ip).toBeUndefined();
    }
  });

  it('reads nothing from text that is not an IPv6 address', async () => {
    const { embeddedIpv4 } = await load();
    const malformed = [
      '::ffff:7f00:1::',
      '0:0:0:0:0:ffff:7f00',
      '0:0:0:0:0:0::ffff:7f00:1',
      '0:0:0:0:0:0:ffff:7f00:1',
      '::ffff:7f00:10000',
      '::ffff:7f00:-1',
      '::ffff:zz:1',
      'not an address',
    ];
    for (const ip of malformed) expect(embeddedIpv4(ip), ip).toBeUndefined();
  });
});
