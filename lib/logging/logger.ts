import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

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

/**
 * Pretty lines (pino-pretty) for a person at a terminal, JSON lines for everything else
 * (a log shipper, a file, a pipe). `LOG_FORMAT=json` or `pretty` overrides the guess.
 */
export function wantsPrettyLogs(env: Record<string, string | undefined> = process.env, isTTY = Boolean(process.stdout.isTTY)): boolean {
  if (env.LOG_FORMAT === 'json') return false;
  if (env.LOG_FORMAT === 'pretty') return true;
  return isTTY;
}

/** The pretty stream: time, level, message and the fields, one event per line block, colours on a terminal. */
export function prettyStream(colorize = Boolean(process.stdout.isTTY), destination?: NodeJS.WritableStream): DestinationStream {
  return pretty({
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service',
    messageFormat: '{service}: {msg}',
    sync: true,
    ...(destination ? { destination } : {}),
  });
}

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    // Secrets must never reach a log line, whatever a caller binds.
    redact: {
      paths: ['secret', '*.secret', 'password', '*.password', 'authorization', '*.authorization', 'token', '*.token'],
      censor: '[redacted]',
    },
  };
  const stream = destination ?? (wantsPrettyLogs() ? prettyStream() : undefined);
  return stream ? pino(options, stream) : pino(options);
}

/** A logger that writes nothing, for tests and library defaults. */
export const silentLogger: Logger = pino({ level: 'silent' });
