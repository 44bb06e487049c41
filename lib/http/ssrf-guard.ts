import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { PermanentError } from '../errors/permanent-error';
import { blockedAddressReason } from './ip-ranges';
import { createPinnedAgent, type FetchDispatcher } from './pinned-agent';

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface SsrfGuardOptions {
  /**
   * Hosts that may be contacted although they are private or loopback: a hostname
   * (matched exactly, case-insensitive), an IP address or a CIDR range. Bullpen passes
   * the WEBHOOK_ALLOW_HOSTS setting.
   * @defaultValue []
   */
  allowHosts?: readonly string[];
  /** Resolves a hostname to all its addresses; tests pass a fake. @defaultValue dns.lookup with `all: true` */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
}

/** A URL that passed the check, with the addresses it resolved to. */
export interface CheckedTarget {
  url: URL;
  hostname: string;
  addresses: ResolvedAddress[];
  /** The hostname itself is allow-listed (its addresses were not judged). */
  allowListed: boolean;
}

/** The code of every refusal, so logs and the DLQ can tell an SSRF refusal apart. */
export const SSRF_REFUSED = 'SSRF_REFUSED';

/**
 * Keeps outbound requests (webhooks) off the worker's own network: only http(s) URLs
 * whose host resolves to public addresses pass, unless the allow-list names the host or
 * the address. A refusal is a PermanentError, since asking again cannot change it.
 *
 * `check()` refuses early with a clear reason; `dispatcher()` gives a fetch dispatcher
 * that runs the same check inside each connection's DNS lookup, so the address used is
 * the address checked (no DNS-rebinding window). Redirects must not be followed by the
 * caller: a 3xx to another host would only be covered by the dispatcher's check.
 */
export class SsrfGuard {
  private readonly hosts: ReadonlySet<string>;
  private readonly addresses = new BlockList();
  private readonly resolveHost: (hostname: string) => Promise<ResolvedAddress[]>;
  private agent: FetchDispatcher | undefined | null = null;

  constructor(opts: SsrfGuardOptions = {}) {
    const hosts = new Set<string>();
    for (const raw of opts.allowHosts ?? []) {
      const entry = normalizeHost(raw);
      const [ip, prefix] = entry.split('/');
      const family = isIP(ip);
      if (family && prefix !== undefined) {
        const bits = Number(prefix);
        if (!Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) {
          throw new RangeError(`Allow-list entry "${raw}": the prefix length must be 0..${family === 4 ? 32 : 128}`);
        }
        this.addresses.addSubnet(ip, bits, family === 4 ? 'ipv4' : 'ipv6');
      } else if (family) {
        this.addresses.addAddress(ip, family === 4 ? 'ipv4' : 'ipv6');
      } else {
        hosts.add(entry);
      }
    }
    this.hosts = hosts;
    this.resolveHost = opts.resolve ?? ((h) => dnsLookup(h, { all: true, verbatim: true }));
  }

  /** Refuses `url` (PermanentError with the reason) unless it may be requested. */
  async check(url: string | URL): Promise<CheckedTarget> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw refuse(`"${String(url)}" is not a valid URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw refuse(`only http and https URLs may be requested, not ${parsed.protocol}`);
    }
    const hostname = normalizeHost(parsed.hostname);
    const addresses = await this.resolveChecked(hostname);
    return { url: parsed, hostname, addresses, allowListed: this.hosts.has(hostname) };
  }

  /** Whether an address is allowed: public, or named by the allow-list. */
  addressRefusal(address: string): string | undefined {
    const family = isIP(address);
    if (family && this.addresses.check(address, family === 4 ? 'ipv4' : 'ipv6')) return undefined;
    return blockedAddressReason(address);
  }

  /**
   * A `net` lookup function that resolves and checks in one step; what the pinned
   * dispatcher connects with.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolveChecked(normalizeHost(hostname)).then(
      (addresses) => {
        const family = options?.family === 4 || options?.family === 6 ? options.family : 0;
        const usable = family ? addresses.filter((a) => a.family === family) : addresses;
        if (usable.length === 0) {
          const err = Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' });
          return callback(err, '', 0);
        }
        if (options?.all) return (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, usable);
        callback(null, usable[0].address, usable[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };

  /**
   * A fetch dispatcher pinned through `lookup`, shared by every request of this guard
   * (connections are kept alive per origin). Undefined when Node's bundled undici is not
   * reachable: requests then rely on `check()` alone, which leaves the DNS-rebinding
   * window between the check and the connection open.
   */
  dispatcher(): FetchDispatcher | undefined {
    if (this.agent === null) this.agent = createPinnedAgent(this.lookup);
    return this.agent;
  }

  /** Closes the pinned dispatcher's idle connections. */
  async close(): Promise<void> {
    const agent = this.agent;
    this.agent = null;
    await agent?.close();
  }

  private async resolveChecked(hostname: string): Promise<ResolvedAddress[]> {
    if (!hostname) throw refuse('the URL has no host');
    const literal = isIP(hostname);
    const addresses: ResolvedAddress[] = literal ? [{ address: hostname, family: literal }] : await this.resolveHost(hostname);
    if (addresses.length === 0) throw refuse(`${hostname} resolves to no address`);
    if (this.hosts.has(hostname)) return addresses;
    // Every address must pass: a name that resolves to a public and a private address
    // would otherwise reach the private one whenever the client happens to pick it.
    for (const { address } of addresses) {
      const reason = this.addressRefusal(address);
      if (reason) {
        // The message reaches dead letters and delivery records, which viewers read: it
        // names the host but not what it resolved to inside the network. The address and
        // the range go to the worker's log through `detail`.
        const shown = literal ? `${hostname} is` : `${hostname} resolves to`;
        throw refuse(`${shown} a private or reserved address; add the host to WEBHOOK_ALLOW_HOSTS to allow it`, {
          hostname,
          address,
          range: reason,
        });
      }
    }
    return addresses;
  }
}

/** A refusal; `detail` (the resolved address and its range) is for the server's log only. */
function refuse(reason: string, detail?: Record<string, string>): PermanentError & { detail?: Record<string, string> } {
  return Object.assign(new PermanentError(`Request refused: ${reason}`, SSRF_REFUSED), detail ? { detail } : {});
}

/** Lower case, without IPv6 brackets and a trailing root dot. */
function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}
