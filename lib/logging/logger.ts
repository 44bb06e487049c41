import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * The structured fields the retry requirements (docs/requirements.md#retry-idempotency-and-dead-letters) lists. Loggers are children of one
 * root so every line carries `service` and whatever context its caller bound.
 */
export interface LogFields {
  requestId?: string;
  traceId?: string;
  jobId?: string;
  queue?: string;
  tenant?: string;
  idempotencyKey?: string;
  operation?: string;
  attempt?: number;
  maxAttempts?: number;
  latencyMs?: number;
  httpStatus?: number;
  retryable?: boolean;
  dlqId?: string;
  [key: string]: unknown;
}

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { service, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    // Secrets must never reach a log line, whatever a caller binds.
    redact: {
      paths: ['secret', '*.secret', 'password', '*.password', 'authorization', '*.authorization', 'token', '*.token'],
      censor: '[redacted]',
    },
  });
}

/** A logger that writes nothing, for tests and library defaults. */
export const silentLogger: Logger = pino({ level: 'silent' });
