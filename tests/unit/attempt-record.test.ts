import { describe, expect, it } from 'vitest';
import { ATTEMPT_ENTRY_MAX_BYTES, ATTEMPT_MESSAGE_CHARS, encodeAttempt, parseAttemptRecord } from '@/lib/runtime/attempt-record';

const entry = { attempt: 1, start: 1_000, end: 1_250, durationMs: 250, worker: 'bullpen:h:1', outcome: 'retried' as const, backoffMs: 400 };

describe('attempt record lines', () => {
  it('keeps a short entry whole, on one line', () => {
    const line = encodeAttempt({ ...entry, errorClass: 'server', message: 'line one\nline two' });
    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({ ...entry, errorClass: 'server', message: 'line one\nline two' });
  });

  it('cuts a long message to its characters, then to the entry’s bytes, whatever the characters', () => {
    expect(JSON.parse(encodeAttempt({ ...entry, message: 'x'.repeat(5_000) })).message).toBe(`${'x'.repeat(ATTEMPT_MESSAGE_CHARS - 1)}…`);
    for (const ch of ['é', '😀', '\u0007', '"']) {
      const line = encodeAttempt({ ...entry, message: ch.repeat(5_000) });
      expect(Buffer.byteLength(line)).toBeLessThanOrEqual(ATTEMPT_ENTRY_MAX_BYTES);
      const message = JSON.parse(line).message as string;
      expect(message.endsWith('…')).toBe(true);
    }
    // Six bytes a character as JSON: as much of the message is kept as fits, one character more would not.
    const tight = encodeAttempt({ ...entry, message: '\u0007'.repeat(5_000) });
    expect(Buffer.byteLength(tight)).toBeGreaterThan(ATTEMPT_ENTRY_MAX_BYTES - 6);
  });

  it('reads the entries in time order, skipping a line that is not one, with the dropped count', () => {
    const later = encodeAttempt({ ...entry, attempt: 2, start: 2_000, end: 2_100 });
    const lost = encodeAttempt({ end: 1_500, outcome: 'stalled', errorClass: 'stalled' });
    const record = parseAttemptRecord([later, 'not json', '{"attempt":"x"}', encodeAttempt(entry), lost].join('\n'), '3');
    expect(record.entries.map((e) => e.start ?? e.end)).toEqual([1_000, 1_500, 2_000]);
    expect(record.dropped).toBe(3);
    expect(parseAttemptRecord(null, null)).toEqual({ entries: [], dropped: 0 });
  });
});
