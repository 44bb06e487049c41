import { describe, expect, it } from 'vitest';
import { TrustedProxies, resolveClient } from '@/dashboard/http/client-address';
import { decodeClientHeader, encodeClientHeader } from '@/dashboard/http/client-header';

describe('resolveClient', () => {
  const none = new TrustedProxies([]);
  const proxies = new TrustedProxies(['127.0.0.1', '10.0.0.0/8']);

  it('ignores forwarding headers from a peer that is not a trusted proxy', () => {
    expect(resolveClient('203.0.113.7', { forwardedFor: '1.2.3.4', forwardedProto: 'https' }, none)).toEqual({
      ip: '203.0.113.7',
      https: false,
    });
    expect(resolveClient('203.0.113.7', { forwardedFor: '1.2.3.4' }, proxies)).toEqual({ ip: '203.0.113.7', https: false });
  });

  it('walks X-Forwarded-For from the right, past trusted proxies only', () => {
    // The client claimed 6.6.6.6; the edge proxy appended the real peer 198.51.100.4.
    expect(resolveClient('127.0.0.1', { forwardedFor: '6.6.6.6, 198.51.100.4, 10.1.2.3', forwardedProto: 'https' }, proxies)).toEqual({
      ip: '198.51.100.4',
      https: true,
    });
    expect(resolveClient('::ffff:127.0.0.1', { forwardedFor: '198.51.100.9' }, proxies).ip).toBe('198.51.100.9');
  });

  it('keeps the proxy itself when the header is missing or garbage', () => {
    expect(resolveClient('10.0.0.5', {}, proxies)).toEqual({ ip: '10.0.0.5', https: false });
    expect(resolveClient('10.0.0.5', { forwardedFor: 'not-an-ip, <script>' }, proxies).ip).toBe('10.0.0.5');
  });

  it('refuses a configuration entry that is not an IP or CIDR', () => {
    expect(() => new TrustedProxies(['proxy.internal'])).toThrow(/not an IP address/);
    expect(() => new TrustedProxies(['10.0.0.0/33'])).toThrow(/prefix length/);
  });
});

describe('the client header', () => {
  it('is believed only with this process’s token', () => {
    const value = encodeClientHeader({ ip: '198.51.100.4', https: true }, 'tok-123');
    expect(decodeClientHeader(value, 'tok-123')).toEqual({ ip: '198.51.100.4', https: true });
    expect(decodeClientHeader(value, 'other')).toBeUndefined();
    expect(decodeClientHeader(value, undefined)).toBeUndefined();
    expect(decodeClientHeader('tok-12 1.2.3.4 https', 'tok-123')).toBeUndefined();
    expect(decodeClientHeader(undefined, 'tok-123')).toBeUndefined();
  });
});
