import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signPayload, verifySignature, SIGNATURE_HEADER } from '@/lib/webhooks/signature';
import { hashRequest } from '@/lib/idempotency/request-hash';

const secret = 'whsec_0123456789abcdef';
const body = '{"id":"d-1","event":"memory.created","payload":{"a":1},"timestamp":"2025-01-01T00:00:00.000Z"}';

describe('webhook signature', () => {
  it('is sha256=<hex HMAC-SHA256 of the body bytes>', () => {
    const expected = createHmac('sha256', secret).update(body).digest('hex');
    expect(signPayload(secret, body)).toBe(`sha256=${expected}`);
    expect(signPayload(secret, Buffer.from(body))).toBe(`sha256=${expected}`);
    expect(SIGNATURE_HEADER).toBe('X-Signature');
  });

  it('verifies its own signature', () => {
    expect(verifySignature(secret, body, signPayload(secret, body))).toBe(true);
    expect(verifySignature(secret, Buffer.from(body), signPayload(secret, body))).toBe(true);
  });

  it('refuses another secret, a changed body, or re-serialised JSON', () => {
    const sig = signPayload(secret, body);
    expect(verifySignature('whsec_another-secret-000', body, sig)).toBe(false);
    expect(verifySignature(secret, body.replace('"a":1', '"a":2'), sig)).toBe(false);
    expect(verifySignature(secret, JSON.stringify(JSON.parse(body), null, 2), sig)).toBe(false);
  });

  it.each([undefined, null, '', 'sha256=', 'sha1=abcd', 'sha256=zz', `sha256=${'0'.repeat(64)}`, `sha256=${'a'.repeat(62)}`])(
    'refuses the malformed or wrong header %s',
    (header) => {
      expect(verifySignature(secret, body, header)).toBe(false);
    },
  );
});

describe('request hash', () => {
  it('ignores key order and notices any changed value', () => {
    expect(hashRequest({ a: 1, b: { c: [1, 2], d: 'x' } })).toBe(hashRequest({ b: { d: 'x', c: [1, 2] }, a: 1 }));
    expect(hashRequest({ a: 1 })).not.toBe(hashRequest({ a: 2 }));
    expect(hashRequest({ a: [1, 2] })).not.toBe(hashRequest({ a: [2, 1] }));
    expect(hashRequest({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });
});
