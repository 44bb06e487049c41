import 'server-only';
import { AppError, isAppError } from '@/lib/errors/app-error';
import type { RedisState } from '@/lib/health/redis-watch';

/** The session a stream was opened with: what is checked again while it lives. */
export interface StreamSession {
  sid: string;
  username: string;
  sessionEpoch: number;
  /** The user's role when the stream opened: a stream never outlives a change of it. */
  role: string;
}

/** Where a stream's bytes go (the route's ReadableStream). `write` answers false once the client stopped reading. */
export interface StreamSink {
  write(chunk: Uint8Array): boolean;
  end(): void;
}

export interface LiveHubOptions {
  /** Reads one subject (a live URL, dashboard/live/live-stream-subjects.ts); an AppError is sent to the tabs as it is. */
  read(subject: string): Promise<unknown>;
  /** Whether each session is still open and its user unchanged, in one round trip; a rejection (Redis away) keeps the streams. */
  sessionsOpen(sessions: StreamSession[]): Promise<boolean[]>;
  /** The process's Redis state now (lib/health/redis-watch.ts); asking keeps the watch's PINGs going. */
  redisState(): RedisState;
  /** Each subject is read once per tick, whatever the number of tabs. @defaultValue 1000 */
  tickMs?: number;
  /** Every open session is checked this often (one round trip for all): a sign-out closes its streams within this and that trip. @defaultValue 250 */
  sessionCheckMs?: number;
  /** The Redis state is looked at this often, and pushed when it changed. @defaultValue 250 */
  redisCheckMs?: number;
  /** Open streams per process. @defaultValue 1000 */
  maxStreams?: number;
  /** Open streams per user (each open tab holds one). @defaultValue 16 */
  maxStreamsPerUser?: number;
  /** Subjects one stream may ask for. @defaultValue 8 */
  maxSubjectsPerStream?: number;
  /** Distinct subjects read per tick across every stream of the process. @defaultValue 128 */
  maxSubjects?: number;
  /** How often `poll` runs by itself; 0: never (tests call `poll`). @defaultValue the shortest of the three cadences */
  pollEveryMs?: number;
  now?: () => number;
}

interface Stream {
  id: number;
  session: StreamSession;
  subjects: string[];
  sink: StreamSink;
  /** When this stream was last sent anything: a tick sends a heartbeat to one that got nothing else. */
  sentAt: number;
}

interface Subject {
  streams: Set<Stream>;
  /** The last event sent for it (data or error), encoded once for every stream. */
  last?: { text: string; bytes: Uint8Array };
  reading: boolean;
}

const encoder = new TextEncoder();

/** One Server-Sent Event; `data` must be one line (JSON.stringify writes none). */
export function sseEvent(event: string, data: string): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${data}\n\n`);
}

/**
 * The dashboard process's one reader of what its open tabs show, pushed to them over
 * Server-Sent Events (docs/decisions/0012-server-sent-events.md). Each tab's stream names
 * its subjects (the live URLs it would otherwise poll); once per tick every distinct
 * subject is read once, whatever the number of tabs, and what changed is encoded once
 * and written to each stream that asked for it. Every stream hears the process's Redis
 * state when it changes, and a heartbeat on a tick that sent it nothing else, so a tab
 * whose stream broke knows within a few seconds. The session of each stream is checked
 * every `sessionCheckMs`: a sign-out, a role or password change or a removed user closes
 * its streams. The number of streams per process and per user, the subjects per stream
 * and the distinct subjects read are bounded; `open` refuses past them.
 */
export class LiveHub {
  private readonly streams = new Set<Stream>();
  private readonly subjects = new Map<string, Subject>();
  private checking = false;
  private readonly tickMs: number;
  private readonly sessionCheckMs: number;
  private readonly redisCheckMs: number;
  private readonly maxStreams: number;
  private readonly maxStreamsPerUser: number;
  private readonly maxSubjectsPerStream: number;
  private readonly maxSubjects: number;
  private readonly now: () => number;
  private timer: ReturnType<typeof setInterval> | undefined;
  private nextId = 1;
  private lastTick = 0;
  private lastSessionCheck = 0;
  private redis: { text: string; bytes: Uint8Array; reachable: boolean } | undefined;

  constructor(private readonly opts: LiveHubOptions) {
    this.tickMs = opts.tickMs ?? 1_000;
    this.sessionCheckMs = opts.sessionCheckMs ?? 250;
    this.redisCheckMs = opts.redisCheckMs ?? 250;
    this.maxStreams = opts.maxStreams ?? 1_000;
    this.maxStreamsPerUser = opts.maxStreamsPerUser ?? 16;
    this.maxSubjectsPerStream = opts.maxSubjectsPerStream ?? 8;
    this.maxSubjects = opts.maxSubjects ?? 128;
    this.now = opts.now ?? Date.now;
  }

  /**
   * Opens a stream for `subjects`: it hears the Redis state at once, each subject's last
   * value if the hub holds one, and the rest as they are read. Throws an AppError past a
   * bound: VALIDATION (too many subjects), RATE_LIMITED (the user's streams), UNAVAILABLE
   * (the process's streams or subjects).
   */
  open(session: StreamSession, subjects: readonly string[], sink: StreamSink): { close(): void } {
    const unique = [...new Set(subjects)];
    if (unique.length === 0) throw new AppError('VALIDATION', 'Name at least one subject (?s=/api/live/…)');
    if (unique.length > this.maxSubjectsPerStream) {
      throw new AppError('VALIDATION', `A stream carries at most ${this.maxSubjectsPerStream} subjects (got ${unique.length})`);
    }
    if (this.streams.size >= this.maxStreams) {
      throw new AppError('UNAVAILABLE', `This dashboard process serves at most ${this.maxStreams} live streams; the tab polls instead`);
    }
    let mine = 0;
    for (const s of this.streams) if (s.session.username === session.username) mine++;
    if (mine >= this.maxStreamsPerUser) {
      throw new AppError('RATE_LIMITED', `At most ${this.maxStreamsPerUser} live streams per user; this tab polls instead`);
    }
    const added = unique.filter((s) => !this.subjects.has(s)).length;
    if (this.subjects.size + added > this.maxSubjects) {
      throw new AppError(
        'UNAVAILABLE',
        `This dashboard process reads at most ${this.maxSubjects} distinct live views; the tab polls instead`,
      );
    }

    // Looked at before the stream joins, so a change is sent to it once.
    const redis = this.redisEvent();
    const stream: Stream = { id: this.nextId++, session, subjects: unique, sink, sentAt: this.now() };
    this.streams.add(stream);
    const joined = unique.map((name) => {
      let subject = this.subjects.get(name);
      if (!subject) {
        subject = { streams: new Set(), reading: false };
        this.subjects.set(name, subject);
      }
      subject.streams.add(stream);
      return [name, subject] as const;
    });
    this.send(stream, redis.bytes);
    for (const [name, subject] of joined) {
      if (subject.last) this.send(stream, subject.last.bytes);
      // A new subject is read now, not at the next tick.
      else if (redis.reachable) this.readSubject(name, subject);
    }
    this.startTimer();
    return { close: () => this.close(stream) };
  }

  /** Open streams now. */
  get size(): number {
    return this.streams.size;
  }

  /** Distinct subjects read per tick now. */
  get subjectCount(): number {
    return this.subjects.size;
  }

  /** Runs whatever is due now: the Redis state, the session checks, the tick's reads and heartbeats. */
  poll(): void {
    const t = this.now();
    const redis = this.redisEvent();
    if (t - this.lastSessionCheck >= this.sessionCheckMs) {
      this.lastSessionCheck = t;
      if (redis.reachable) this.checkSessions();
    }
    if (t - this.lastTick >= this.tickMs) {
      this.lastTick = t;
      // Redis away: nothing can be read, and the tabs already show it from the Redis event.
      if (redis.reachable) for (const [name, subject] of this.subjects) this.readSubject(name, subject);
      const quiet = t - this.tickMs;
      const beat = sseEvent('heartbeat', String(t));
      for (const s of this.streams) if (s.sentAt < quiet) this.send(s, beat);
    }
  }

  /** Ends every stream (the process is closing). */
  closeAll(): void {
    for (const s of [...this.streams]) this.close(s, 'closing');
  }

  private close(stream: Stream, reason?: string): void {
    if (!this.streams.delete(stream)) return;
    try {
      if (reason) stream.sink.write(sseEvent('closed', JSON.stringify({ reason })));
      stream.sink.end();
    } catch {
      // Already closed by the client.
    }
    for (const name of stream.subjects) {
      const subject = this.subjects.get(name);
      subject?.streams.delete(stream);
      if (subject && subject.streams.size === 0) this.subjects.delete(name);
    }
    if (this.streams.size === 0) this.stopTimer();
  }

  private send(stream: Stream, bytes: Uint8Array): void {
    stream.sentAt = this.now();
    let ok: boolean;
    try {
      ok = stream.sink.write(bytes);
    } catch {
      ok = false;
    }
    // A client that stopped reading (its queue full) or went away costs nothing more.
    if (!ok) this.close(stream);
  }

  /** The Redis state as an event; pushed to every stream when reachability or its `since` changed. */
  private redisEvent(): { bytes: Uint8Array; reachable: boolean } {
    const state = this.opts.redisState();
    const text = JSON.stringify({ reachable: state.reachable, since: state.since, reason: state.reason, checkedAt: state.checkedAt });
    const key = `${state.reachable}:${state.since}`;
    if (!this.redis || this.redis.text !== key) {
      this.redis = { text: key, bytes: sseEvent('redis', text), reachable: state.reachable };
      for (const s of [...this.streams]) this.send(s, this.redis.bytes);
    }
    return this.redis;
  }

  private readSubject(name: string, subject: Subject): void {
    if (subject.reading) return;
    subject.reading = true;
    this.opts.read(name).then(
      (value) => this.publish(name, subject, 'data', JSON.stringify({ s: name, v: value })),
      (err: unknown) => {
        const { code, message } = isAppError(err) ? err : { code: 'INTERNAL', message: 'The read failed' };
        this.publish(name, subject, 'failure', JSON.stringify({ s: name, code, message }));
      },
    );
  }

  private publish(name: string, subject: Subject, event: string, text: string): void {
    subject.reading = false;
    // Closed meanwhile (its last stream left): nobody to tell.
    if (this.subjects.get(name) !== subject || subject.last?.text === text) return;
    subject.last = { text, bytes: sseEvent(event, text) };
    for (const s of [...subject.streams]) this.send(s, subject.last.bytes);
  }

  private checkSessions(): void {
    // A check still out (a slow Redis): the next one waits for it rather than pile up.
    if (this.checking || this.streams.size === 0) return;
    const bySid = new Map<string, Stream[]>();
    for (const s of this.streams) bySid.set(s.session.sid, [...(bySid.get(s.session.sid) ?? []), s]);
    const groups = [...bySid.values()];
    this.checking = true;
    this.opts.sessionsOpen(groups.map((g) => g[0].session)).then(
      (open) => {
        this.checking = false;
        groups.forEach((streams, i) => {
          if (!open[i]) for (const s of streams) this.close(s, 'signed-out');
        });
      },
      () => {
        this.checking = false;
      },
    );
  }

  private startTimer(): void {
    const every = this.opts.pollEveryMs ?? Math.min(this.tickMs, this.sessionCheckMs, this.redisCheckMs);
    if (this.timer || every <= 0) return;
    this.timer = setInterval(() => this.poll(), every);
    // The hub never keeps a process alive on its own.
    this.timer.unref?.();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
