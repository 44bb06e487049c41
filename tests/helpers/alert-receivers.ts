import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One request that reached the HTTP sink. */
export interface SinkRequest {
  at: number;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The exact bytes, as text (a signature is checked on these). */
  raw: string;
  body: unknown;
  /** What the sink answered. */
  status: number;
}

export interface HttpSink {
  url: string;
  requests: SinkRequest[];
  /** The next `n` requests are answered 503 (a channel that fails). */
  failNext(n: number): void;
  close(): Promise<void>;
}

/** A loopback HTTP receiver (a Slack incoming webhook or a generic webhook) that records every request. */
export async function startHttpSink(): Promise<HttpSink> {
  const requests: SinkRequest[] = [];
  let failing = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      const status = failing > 0 ? 503 : 200;
      if (failing > 0) failing--;
      requests.push({ at: Date.now(), path: req.url ?? '/', headers: req.headers, raw, body, status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'unavailable');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext: (n) => {
      failing = n;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export interface SmtpSink {
  port: number;
  mails: Array<ParsedMail & { at: number; authUser?: string }>;
  close(): Promise<void>;
}

/**
 * A loopback SMTP server (smtp-server) that takes mail with AUTH PLAIN/LOGIN over a plain
 * connection (no STARTTLS: a test certificate is not worth its setup here) and parses
 * each message with mailparser.
 */
export async function startSmtpSink(credentials: { user: string; pass: string }): Promise<SmtpSink> {
  const mails: SmtpSink['mails'] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === credentials.user && auth.password === credentials.pass) return cb(null, { user: auth.username });
      return cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      simpleParser(stream)
        .then((mail) => {
          mails.push(Object.assign(mail, { at: Date.now(), authUser: typeof session.user === 'string' ? session.user : undefined }));
          cb();
        })
        .catch(cb);
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.server.address() as AddressInfo;
  return { port, mails, close: () => new Promise((r) => server.close(() => r())) };
}
