import { describe, expect, it } from 'vitest';
import { PermanentError } from '@/lib/errors/permanent-error';
import { blockedAddressReason, embeddedIpv4 } from '@/lib/http/ip-ranges';
import { SSRF_REFUSED, SsrfGuard, type ResolvedAddress } from '@/lib/http/ssrf-guard';

/** A resolver with fixed answers: no DNS in unit tests. */
function fakeDns(table: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve = async (host: string): Promise<ResolvedAddress[]> => {
    asked.push(host);
    const ips = table[host];
    if (!ips) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return ips.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, asked };
}

async function refusal(p: Promise<unknown>): Promise<PermanentError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PermanentError);
  expect((err as PermanentError).code).toBe(SSRF_REFUSED);
  return err as PermanentError;
}

describe('address classes', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback, as an IPv4-in-IPv6'],
    ['::ffff:7f00:1', 'loopback, as an IPv4-in-IPv6'],
    ['::ffff:10.0.0.1', 'private (RFC 1918), as an IPv4-in-IPv6'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['::ffff:0:7f00:1', 'loopback, as an IPv4-in-IPv6'],
    ['::ffff:0:10.1.2.3', 'private (RFC 1918), as an IPv4-in-IPv6'],
    ['2002:7f00:1::', 'loopback, as an IPv4-in-IPv6'],
    ['2002:a9fe:a9fe::1', 'link-local'],
    ['2002:c0a8:101:1::5', 'private (RFC 1918)'],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
    ['64:ff9b:1:ffff::8.8.8.8', 'local-use NAT64'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['[::1]', 'loopback'],
  ])('%s is refused as %s', (ip, reason) => {
    expect(blockedAddressReason(ip)).toContain(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '2002:808:808::1',
  ])('%s is public', (ip) => {
    expect(blockedAddressReason(ip)).toBeUndefined();
  });

  it('reads the IPv4 address inside mapped, compatible and NAT64 forms only', () => {
    expect(embeddedIpv4('::ffff:c0a8:101')).toBe('192.168.1.1');
    expect(embeddedIpv4('64:ff9b::a00:1')).toBe('10.0.0.1');
    expect(embeddedIpv4('2001:db8::1')).toBeUndefined();
    expect(embeddedIpv4('::1')).toBeUndefined();
  });

  it('reads nothing from text that is not one IPv6 address, and keeps the compatible form', () => {
    expect(embeddedIpv4('::2')).toBe('0.0.0.2');
    expect(embeddedIpv4('0:0:0:0:0:ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('0:0:0:0:0::ffff:7f00:1')).toBe('127.0.0.1');
    for (const ip of [
      '::ffff:7f00:1::',
      '0:0:0:0:0:ffff:7f00',
      '0:0:0:0:0:0::ffff:7f00:1',
      '::ffff:7f00:10000',
      '::ffff:1:102:304',
      'not an address',
    ]) {
      expect(embeddedIpv4(ip), ip).toBeUndefined();
    }
  });

  it('refuses what is not an IP address', () => {
    expect(blockedAddressReason('localhost')).toBe('not an IP address');
  });
});

describe('SsrfGuard.check', () => {
  const dns = fakeDns({
    'example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'internal.corp': ['10.0.0.5'],
    'mixed.test': ['93.184.216.34', '127.0.0.1'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'receiver.local': ['192.168.10.20'],
  });

  it('passes a public host with every address it resolved to', async () => {
    const guard = new SsrfGuard({ resolve: dns.resolve });
    const target = await guard.check('https://Example.com./hook?x=1');
    expect(target.hostname).toBe('example.com');
    expect(target.addresses.map((a) => a.address)).toEqual(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);
    expect(target.allowListed).toBe(false);
  });

  it('refuses a host that resolves to a private address, naming the host but not the address it resolved to', async () => {
    const guard = new SsrfGuard({ resolve: dns.resolve });
    const err = await refusal(guard.check('http://internal.corp/hook'));
    expect(err.message).toMatch(/internal\.corp resolves to a private or reserved address/);
    expect(err.message).toMatch(/WEBHOOK_ALLOW_HOSTS/);
    // Dead letters and delivery records show the message to viewers: no internal address in it.
    expect(err.message).not.toMatch(/10\.0\.0\.5|RFC 1918/);
    // The server's log gets the detail.
    expect((err as PermanentError & { detail?: unknown }).detail).toEqual({
      hostname: 'internal.corp',
      address: '10.0.0.5',
      range: 'private (RFC 1918)',
    });
  });

  it('refuses a host when any one of its addresses is private', async () => {
    const guard = new SsrfGuard({ resolve: dns.resolve });
    await refusal(guard.check('http://mixed.test/'));
  });

  it('refuses an IPv4-mapped loopback answer', async () => {
    const guard = new SsrfGuard({ resolve: dns.resolve });
    const err = await refusal(guard.check('http://mapped.test/'));
    expect((err as PermanentError & { detail?: { range: string } }).detail?.range).toMatch(/loopback/);
  });

  it.each([
    'http://127.0.0.1:8080/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00::1]/',
  ])('refuses the literal %s without asking DNS', async (url) => {
    const local = fakeDns({});
    const guard = new SsrfGuard({ resolve: local.resolve });
    await refusal(guard.check(url));
    expect(local.asked).toEqual([]);
  });

  it.each(['ftp://example.com/', 'file:///etc/passwd', 'gopher://example.com/', 'not a url'])('refuses %s', async (url) => {
    const guard = new SsrfGuard({ resolve: dns.resolve });
    const err = await refusal(guard.check(url));
    expect(err.message).toMatch(/http and https|not a valid URL/);
  });

  it('lets the allow-list name a host, an address or a range', async () => {
    const byHost = new SsrfGuard({ resolve: dns.resolve, allowHosts: ['Receiver.Local'] });
    await expect(byHost.check('http://receiver.local:9000/in')).resolves.toMatchObject({ allowListed: true });
    await refusal(byHost.check('http://internal.corp/'));

    const byIp = new SsrfGuard({ resolve: dns.resolve, allowHosts: ['127.0.0.1', '::1'] });
    await expect(byIp.check('http://127.0.0.1:3000/')).resolves.toMatchObject({ hostname: '127.0.0.1' });
    await expect(byIp.check('http://[::1]:3000/')).resolves.toMatchObject({ hostname: '::1' });
    await refusal(byIp.check('http://127.0.0.2/'));

    const byRange = new SsrfGuard({ resolve: dns.resolve, allowHosts: ['10.0.0.0/24'] });
    await expect(byRange.check('http://internal.corp/')).resolves.toMatchObject({ allowListed: false });
    await refusal(byRange.check('http://10.0.1.1/'));
  });

  it('rejects a malformed allow-list range at construction', () => {
    expect(() => new SsrfGuard({ allowHosts: ['10.0.0.0/33'] })).toThrow(/prefix length/);
  });

  it('leaves a DNS failure as a network error, not a refusal', async () => {
    const guard = new SsrfGuard({ resolve: dns.resolve });
    await expect(guard.check('http://nowhere.test/')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('SsrfGuard.lookup (what the pinned dispatcher connects with)', () => {
  function lookup(guard: SsrfGuard, host: string, all: boolean) {
    return new Promise<{ err: NodeJS.ErrnoException | null; result: unknown }>((resolve) => {
      guard.lookup(host, { all }, ((err: NodeJS.ErrnoException | null, address: unknown) => resolve({ err, result: address })) as never);
    });
  }

  it('answers with the checked addresses, in both callback forms', async () => {
    const guard = new SsrfGuard({ resolve: fakeDns({ 'example.com': ['93.184.216.34'] }).resolve });
    expect(await lookup(guard, 'example.com', true)).toEqual({ err: null, result: [{ address: '93.184.216.34', family: 4 }] });
    expect(await lookup(guard, 'example.com', false)).toEqual({ err: null, result: '93.184.216.34' });
  });

  it('fails the connection when the name now resolves to a private address (DNS rebinding)', async () => {
    let answer = '93.184.216.34';
    const guard = new SsrfGuard({ resolve: async () => [{ address: answer, family: 4 }] });
    await guard.check('http://rebind.test/');
    answer = '127.0.0.1';
    const { err } = await lookup(guard, 'rebind.test', true);
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as PermanentError & { detail?: { range: string } }).detail?.range).toMatch(/loopback/);
  });
});

describe('SsrfGuard: what each refusal says', () => {
  const dns = fakeDns({ 'internal.corp': ['10.0.0.5'], 'empty.test': [], 'dual.test': ['93.184.216.34', '2606:4700:4700::1111'] });

  it('a literal address "is", a name "resolves to"; both start "Request refused: "', async () => {
    const guard = new SsrfGuard({ resolve: dns.resolve });
    expect((await refusal(guard.check('http://10.0.0.1/'))).message).toBe(
      'Request refused: 10.0.0.1 is a private or reserved address; add the host to WEBHOOK_ALLOW_HOSTS to allow it',
    );
    expect((await refusal(guard.check('http://internal.corp/'))).message).toBe(
      'Request refused: internal.corp resolves to a private or reserved address; add the host to WEBHOOK_ALLOW_HOSTS to allow it',
    );
    expect((await refusal(guard.check('ftp://example.com/'))).message).toBe(
      'Request refused: only http and https URLs may be requested, not ftp:',
    );
    expect((await refusal(guard.check('nope'))).message).toBe('Request refused: "nope" is not a valid URL');
    expect((await refusal(guard.check('http://empty.test/'))).message).toBe('Request refused: empty.test resolves to no address');
  });

  it('a refusal of a URL that does not parse carries no detail; a private address’s does', async () => {
    const guard = new SsrfGuard({ resolve: dns.resolve });
    expect('detail' in (await refusal(guard.check('nope')))).toBe(false);
    expect((await refusal(guard.check('http://10.0.0.1/'))) as unknown).toMatchObject({
      detail: { hostname: '10.0.0.1', address: '10.0.0.1' },
    });
  });

  it('takes a URL object as well as a string, and passes https', async () => {
    const guard = new SsrfGuard({ resolve: dns.resolve });
    await expect(guard.check(new URL('https://dual.test/x'))).resolves.toMatchObject({ hostname: 'dual.test' });
  });
});

describe('SsrfGuard: its defaults', () => {
  it('refuses with the code logs and dead letters filter on', () => {
    expect(SSRF_REFUSED).toBe('SSRF_REFUSED');
  });

  it('resolves with the system resolver, every address of the name (localhost: from the hosts file, no network)', async () => {
    const err = await refusal(new SsrfGuard().check('http://localhost:9/'));
    expect(err.message).toBe(
      'Request refused: localhost resolves to a private or reserved address; add the host to WEBHOOK_ALLOW_HOSTS to allow it',
    );
    expect((err as PermanentError & { detail?: { range: string } }).detail?.range).toBe('loopback');
    const allowed = await new SsrfGuard({ allowHosts: ['localhost'] }).check('http://localhost:9/');
    expect(allowed.addresses.length).toBeGreaterThan(0);
    expect(allowed.addresses.every((a) => blockedAddressReason(a.address) === 'loopback')).toBe(true);
  });
});

describe('SsrfGuard: the allow-list', () => {
  const dns = fakeDns({ 'hook.internal': ['10.1.1.1'], 'v6.internal': ['fd00::5'] });

  it('normalises hosts: case, spaces, brackets and a trailing dot do not matter', async () => {
    const guard = new SsrfGuard({ resolve: dns.resolve, allowHosts: ['  Hook.Internal. ', '[FD00::5]'] });
    await expect(guard.check('http://hook.internal/')).resolves.toMatchObject({
      allowListed: true,
      addresses: [{ address: '10.1.1.1', family: 4 }],
    });
    await expect(guard.check('http://v6.internal/')).resolves.toMatchObject({ allowListed: false });
    expect(guard.addressRefusal('fd00::5')).toBeUndefined();
    expect(guard.addressRefusal('fd00::6')).toBe('unique-local');
  });

  it('takes IPv4 prefixes 0..32 and IPv6 prefixes 0..128, and names the bound it broke', () => {
    for (const ok of ['10.0.0.0/0', '10.0.0.0/32', '::/0', 'fd00::/128'])
      expect(() => new SsrfGuard({ allowHosts: [ok] }), ok).not.toThrow();
    expect(() => new SsrfGuard({ allowHosts: ['10.0.0.0/33'] })).toThrow('Allow-list entry "10.0.0.0/33": the prefix length must be 0..32');
    expect(() => new SsrfGuard({ allowHosts: ['fd00::/129'] })).toThrow('Allow-list entry "fd00::/129": the prefix length must be 0..128');
    expect(() => new SsrfGuard({ allowHosts: ['10.0.0.0/-1'] })).toThrow('the prefix length must be 0..32');
    expect(() => new SsrfGuard({ allowHosts: ['10.0.0.0/8.5'] })).toThrow('the prefix length must be 0..32');
    expect(() => new SsrfGuard({ allowHosts: ['10.0.0.0/x'] })).toThrow('the prefix length must be 0..32');
  });

  it('an IPv6 range allows the addresses inside it only', () => {
    const guard = new SsrfGuard({ allowHosts: ['fd00::/16'] });
    expect(guard.addressRefusal('fd00::1234')).toBeUndefined();
    expect(guard.addressRefusal('fd01::1')).toBe('unique-local');
    const v4 = new SsrfGuard({ allowHosts: ['10.0.0.0/8'] });
    expect(v4.addressRefusal('10.200.0.1')).toBeUndefined();
    expect(v4.addressRefusal('11.0.0.1')).toBeUndefined();
    expect(v4.addressRefusal('192.168.0.1')).toBe('private (RFC 1918)');
    expect(v4.addressRefusal('not-an-ip')).toBe('not an IP address');
  });
});

describe('SsrfGuard.lookup: address families and failures', () => {
  const guard = () =>
    new SsrfGuard({
      resolve: fakeDns({
        'dual.test': ['93.184.216.34', '2606:4700:4700::1111'],
        'v6first.test': ['2606:4700:4700::1111', '93.184.216.34'],
        'v4.test': ['93.184.216.34'],
      }).resolve,
    });
  function lookup(host: string, options: { all?: boolean; family?: number } | undefined) {
    return new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family: unknown }>((resolve) => {
      guard().lookup(
        host,
        options as never,
        ((err: NodeJS.ErrnoException | null, address: unknown, family: unknown) => resolve({ err, address, family })) as never,
      );
    });
  }

  it('answers with the family asked for, or every address', async () => {
    expect(await lookup('dual.test', { family: 6 })).toEqual({ err: null, address: '2606:4700:4700::1111', family: 6 });
    expect(await lookup('dual.test', { family: 4 })).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    expect(await lookup('dual.test', { family: 0 })).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    expect((await lookup('dual.test', { all: true, family: 6 })).address).toEqual([{ address: '2606:4700:4700::1111', family: 6 }]);
    expect((await lookup('Dual.Test.', undefined)).address).toBe('93.184.216.34');
    expect(await lookup('v6first.test', { family: 4 })).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    expect(await lookup('v6first.test', { family: 0 })).toEqual({ err: null, address: '2606:4700:4700::1111', family: 6 });
  });

  it('no address of the family asked for is ENOTFOUND, saying which family', async () => {
    const { err, address, family } = await lookup('v4.test', { family: 6 });
    expect(err).toMatchObject({ code: 'ENOTFOUND', message: 'v4.test has no IPv6 address' });
    expect([address, family]).toEqual(['', 0]);
  });

  it('hands on a DNS failure and a refusal as the connection’s error', async () => {
    const missing = await lookup('nowhere.test', { all: true });
    expect(missing.err).toMatchObject({ code: 'ENOTFOUND' });
    expect([missing.address, missing.family]).toEqual(['', 0]);
    const empty = await lookup('', { all: true });
    expect(empty.err).toBeInstanceOf(PermanentError);
    expect(empty.err?.message).toBe('Request refused: the URL has no host');
  });
});

describe('SsrfGuard.dispatcher', () => {
  it('is one pinned dispatcher per guard until closed, then a new one', async () => {
    const guard = new SsrfGuard();
    const first = guard.dispatcher();
    expect(first).toBeDefined();
    expect(guard.dispatcher()).toBe(first);
    await guard.close();
    const second = guard.dispatcher();
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    await guard.close();
    await guard.close();
  });
});
