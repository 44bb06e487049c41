import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, prettyStream, wantsPrettyLogs } from '@/lib/logging/logger';

function sink(): { stream: Writable; text(): string } {
  let out = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      out += String(chunk);
      done();
    },
  });
  return { stream, text: () => out };
}

describe('log format', () => {
  it('is pretty at a terminal and JSON elsewhere, unless LOG_FORMAT says', () => {
    expect(wantsPrettyLogs({}, true)).toBe(true);
    expect(wantsPrettyLogs({}, false)).toBe(false);
    expect(wantsPrettyLogs({ LOG_FORMAT: 'json' }, true)).toBe(false);
    expect(wantsPrettyLogs({ LOG_FORMAT: 'pretty' }, false)).toBe(true);
  });

  it('writes one JSON object per line by default, with secrets redacted', () => {
    const s = sink();
    createLogger('worker', 'info', s.stream as never).info({ jobId: '7', password: 'hunter2' }, 'job completed');
    const line = JSON.parse(s.text().trim());
    expect(line).toMatchObject({ level: 'info', service: 'worker', jobId: '7', password: '[redacted]', msg: 'job completed' });
  });

  it('writes a readable line through pino-pretty: time, level, message and fields, no JSON braces around the event', () => {
    const s = sink();
    const pretty = prettyStream(false, s.stream);
    const logger = createLogger('worker', 'info', pretty);
    logger.warn({ queue: 'webhook-dispatch', attempt: 2 }, 'job attempt failed, will retry');
    // sync: the line is written before warn() returns.
    const text = s.text();
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: worker: job attempt failed, will retry\n/);
    expect(text).toContain('queue: "webhook-dispatch"');
    expect(text).not.toContain('{"');
  });
});
