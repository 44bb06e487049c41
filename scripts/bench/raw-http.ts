/**
 * A minimal HTTP/1.1 keep-alive client on node:net, for the observer benchmark's
 * polling clients (observer-clients.ts). The clients stand in for browsers on other
 * machines but share this machine's two cores with the runtime being measured, so
 * their own CPU is part of the loss they report: node:http's client (request and
 * response objects, streams, the agent) cost about as much per poll as the server that
 * answered it. This one writes a request prepared once and reads the answer's status and
 * body length — Content-Length, chunked, or until close — with nothing else.
 *
 * One request at a time per connection, as a browser sends on one HTTP/1.1 connection.
 */
import net from 'node:net';

export interface RawAnswer {
  status: number;
  /** Bytes of the body as sent (still gzipped when the server gzipped it). */
  bodyBytes: number;
  /** With `keep`: the headers (names in lower case, repeats joined by ", ") and the body as sent, de-chunked. */
  headers?: Record<string, string>;
  body?: Buffer;
}

/** The bytes of a GET of `path` with `headers`, prepared once and sent as they are on each poll. */
export function getRequest(host: string, path: string, headers: Record<string, string>): Buffer {
  if (!path.startsWith('/') || /[\r\n ]/.test(path)) throw new Error(`not a request path: ${JSON.stringify(path)}`);
  const lines = [`GET ${path} HTTP/1.1`, `host: ${host}`];
  for (const [name, value] of Object.entries(headers)) {
    if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) throw new Error(`header ${JSON.stringify(name)} has a line break`);
    lines.push(`${name}: ${value}`);
  }
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

/** `getRequest` for a URL's host, path and query. */
export function getRequestTo(url: URL, headers: Record<string, string>): Buffer {
  return getRequest(url.host, `${url.pathname}${url.search}`, headers);
}

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

/** What is known of the answer being read. */
interface Reading {
  status: number;
  /** 'length': `remaining` body bytes to go; 'chunked': at a chunk-size line or in a chunk; 'close': until the server closes. */
  framing: 'length' | 'chunked' | 'close';
  remaining: number;
  /** In a chunked body: bytes left of the current chunk and its CRLF (-1: at a size line; -2: in the trailer). */
  chunkLeft: number;
  bodyBytes: number;
  closeAfter: boolean;
  /** With `keep`: what the answer will resolve with besides its status and length. */
  headers?: Record<string, string>;
  parts?: Buffer[];
}

export class KeepAliveConnection {
  private socket: net.Socket | undefined;
  private buffered: Buffer = Buffer.alloc(0);
  private reading: Reading | undefined;
  private pending: { resolve(a: RawAnswer): void; reject(e: Error): void; keep: boolean } | undefined;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  /** A connection to an http: URL's host and port (80 when it names none). */
  static to(url: URL): KeepAliveConnection {
    return new KeepAliveConnection(url.hostname, Number(url.port || 80));
  }

  /**
   * Sends `request` (from getRequest) and resolves with the answer once its body is
   * complete; with `keep`, with its headers and body too (a poll needs neither).
   */
  send(request: Buffer, opts: { keep?: boolean } = {}): Promise<RawAnswer> {
    if (this.pending) return Promise.reject(new Error('a request is already in flight on this connection'));
    return new Promise<RawAnswer>((resolve, reject) => {
      this.pending = { resolve, reject, keep: opts.keep === true };
      this.connection().write(request);
    });
  }

  /** Closes the connection; a request in flight fails. */
  close(): void {
    if (this.socket) this.fail(this.socket, new Error('the connection was closed before the answer was complete'));
  }

  private connection(): net.Socket {
    if (this.socket && !this.socket.destroyed) return this.socket;
    const socket = net.connect({ host: this.host, port: this.port, noDelay: true });
    this.socket = socket;
    this.buffered = Buffer.alloc(0);
    this.reading = undefined;
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.fail(socket, err));
    socket.on('close', () => {
      if (this.socket === socket && this.reading?.framing === 'close' && this.pending) this.finish();
      this.fail(socket, new Error('the server closed the connection before the answer was complete'));
    });
    return socket;
  }

  private fail(socket: net.Socket, err: Error): void {
    socket.destroy();
    // A connection already replaced (closed after its answer) has nothing in flight.
    if (this.socket !== socket) return;
    this.socket = undefined;
    const p = this.pending;
    this.pending = undefined;
    this.reading = undefined;
    p?.reject(err);
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    try {
      while (this.pending && this.step());
    } catch (err) {
      if (this.socket) this.fail(this.socket, err as Error);
    }
  }

  /** Consumes what it can of the buffer; true when it made progress and may go on. */
  private step(): boolean {
    if (!this.reading) return this.readHead();
    const r = this.reading;
    if (r.framing === 'close') {
      r.bodyBytes += this.buffered.length;
      r.parts?.push(this.buffered);
      this.buffered = Buffer.alloc(0);
      return false;
    }
    if (r.framing === 'length') {
      const take = Math.min(r.remaining, this.buffered.length);
      r.remaining -= take;
      r.bodyBytes += take;
      r.parts?.push(this.buffered.subarray(0, take));
      this.buffered = this.buffered.subarray(take);
      if (r.remaining > 0) return false;
      this.finish();
      return true;
    }
    return this.stepChunked(r);
  }

  private readHead(): boolean {
    const end = this.buffered.indexOf(HEAD_END);
    if (end < 0) {
      if (this.buffered.length > 64 * 1024) throw new Error('an answer head longer than 64 KiB');
      return false;
    }
    const lines = this.buffered.subarray(0, end).toString('latin1').split('\r\n');
    this.buffered = this.buffered.subarray(end + HEAD_END.length);
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
    if (!status) throw new Error(`not an HTTP/1.1 status line: ${JSON.stringify(lines[0]?.slice(0, 80))}`);
    let length: number | undefined;
    let chunked = false;
    let closeAfter = lines[0].startsWith('HTTP/1.0');
    const headers: Record<string, string> | undefined = this.pending?.keep ? {} : undefined;
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const raw = line.slice(colon + 1).trim();
      if (headers) headers[name] = name in headers ? `${headers[name]}, ${raw}` : raw;
      const value = raw.toLowerCase();
      if (name === 'content-length') length = Number(value);
      else if (name === 'transfer-encoding') chunked = value.split(',').some((v) => v.trim() === 'chunked');
      else if (name === 'connection') closeAfter = value.split(',').some((v) => v.trim() === 'close');
    }
    if (length !== undefined && !(Number.isSafeInteger(length) && length >= 0)) throw new Error('an invalid Content-Length');
    const code = Number(status[1]);
    // These statuses never carry a body, whatever their headers say.
    if (code === 204 || code === 304 || code < 200) length = 0;
    this.reading = {
      status: code,
      framing: chunked && length !== 0 ? 'chunked' : length !== undefined ? 'length' : 'close',
      remaining: length ?? 0,
      chunkLeft: -1,
      bodyBytes: 0,
      closeAfter,
      ...(headers ? { headers, parts: [] } : {}),
    };
    return true;
  }

  private stepChunked(r: Reading): boolean {
    if (r.chunkLeft >= 0) {
      const take = Math.min(r.chunkLeft, this.buffered.length);
      // The chunk's data, not the CRLF after it.
      const data = Math.max(0, Math.min(take, r.chunkLeft - CRLF.length));
      if (data > 0) r.parts?.push(this.buffered.subarray(0, data));
      r.chunkLeft -= take;
      this.buffered = this.buffered.subarray(take);
      if (r.chunkLeft > 0) return false;
      r.chunkLeft = -1;
      return true;
    }
    const eol = this.buffered.indexOf(CRLF);
    if (eol < 0) return false;
    const line = this.buffered.subarray(0, eol).toString('latin1');
    this.buffered = this.buffered.subarray(eol + CRLF.length);
    if (r.chunkLeft === -2) {
      // The trailer ends with an empty line.
      if (line === '') this.finish();
      return true;
    }
    const hex = line.split(';')[0].trim();
    const size = /^[0-9a-fA-F]+$/.test(hex) ? Number.parseInt(hex, 16) : Number.NaN;
    if (!Number.isSafeInteger(size)) throw new Error(`a bad chunk size: ${JSON.stringify(line.slice(0, 20))}`);
    if (size === 0) {
      r.chunkLeft = -2;
      return true;
    }
    // The chunk's data counts; the CRLF after it is framing.
    r.bodyBytes += size;
    r.chunkLeft = size + CRLF.length;
    return true;
  }

  private finish(): void {
    const r = this.reading;
    const p = this.pending;
    this.reading = undefined;
    this.pending = undefined;
    if (!r || !p) return;
    if (r.closeAfter) {
      // Forget the socket first: its 'close' event must not touch the next request's connection.
      const socket = this.socket;
      this.socket = undefined;
      socket?.destroy();
    }
    p.resolve({
      status: r.status,
      bodyBytes: r.bodyBytes,
      ...(r.headers && r.parts ? { headers: r.headers, body: Buffer.concat(r.parts) } : {}),
    });
  }
}
