import { describe, expect, it } from 'vitest';
import { SseParser } from '@/dashboard/client/sse-parser';

describe('SSE parser', () => {
  it('yields each event once its blank line arrives, however the chunks split it', () => {
    const p = new SseParser();
    expect(p.push('event: data\ndata: {"s":"/api/live/ov')).toEqual([]);
    expect(p.push('erview","v":1}\n')).toEqual([]);
    expect(p.push('\nevent: heartbeat\ndata: 5\n\nevent: re')).toEqual([
      { event: 'data', data: '{"s":"/api/live/overview","v":1}' },
      { event: 'heartbeat', data: '5' },
    ]);
    expect(p.push('dis\ndata: {"reachable":false}\n\n')).toEqual([{ event: 'redis', data: '{"reachable":false}' }]);
  });

  it('joins data lines, takes CRLF, skips comments and events without data', () => {
    const p = new SseParser();
    expect(p.push(': keep-alive\r\n\r\ndata: a\r\ndata: b\r\n\r\nevent: empty\n\n')).toEqual([{ event: 'message', data: 'a\nb' }]);
  });

  it('refuses an unfinished event past its bound', () => {
    const p = new SseParser();
    expect(() => p.push(`data: ${'x'.repeat(16 * 1024 * 1024)}`)).toThrow(/passed/);
  });
});
