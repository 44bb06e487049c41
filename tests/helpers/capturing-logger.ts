import { Writable } from 'node:stream';
import { createLogger } from '@/lib/logging/logger';

/** A debug-level logger whose JSON lines a test reads back, each parsed, in order. */
export function capturingLogger(): { logger: ReturnType<typeof createLogger>; lines: Array<Record<string, any>> } {
  const lines: Array<Record<string, any>> = [];
  const logger = createLogger(
    'test',
    'debug',
    new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  return { logger, lines };
}
