import 'server-only';
import { NextResponse } from 'next/server';
import { signInService } from '@/dashboard/auth/auth-services';
import { currentUser, getSession, sessionLookups } from '@/dashboard/auth/session';
import { sessionDataSchema } from '@/dashboard/auth/session-options';
import { processScoped, readyBullpen, redisWatch } from '@/dashboard/dashboard-process';
import { asPoll } from '@/dashboard/reads';
import { AppError, isAppError } from '@/lib/errors/app-error';
import { boundedRead, LIVE_READ_MS, SESSION_READ_MS } from './bounded-read';
import { LiveHub, type StreamSink } from './live-hub';
import { streamReadOf } from './live-stream-subjects';

/** A client that stopped reading: past this many bytes queued, its stream is closed. */
const MAX_QUEUED_BYTES = 1 << 20;

/** The process's one hub: one reader for every tab's stream (dashboard/live/live-hub.ts). */
export function liveHub(): LiveHub {
  return processScoped(
    'live-hub',
    () =>
      new LiveHub({
        read: (subject) => {
          const read = streamReadOf(subject);
          if (!read) return Promise.reject(new AppError('VALIDATION', `Not a live subject: ${subject}`));
          // As a tab's poll: the live cache keeps what it reads fresh, and the read is bounded in time.
          return asPoll(() => boundedRead('live read', read, LIVE_READ_MS));
        },
        sessionsOpen: async (sessions) => {
          const open = await boundedRead(
            'session check',
            async () => {
              await readyBullpen();
              return signInService().sessions.openMany(sessions);
            },
            SESSION_READ_MS,
          );
          // The user record by the one session rule (dashboard/auth/session-check.ts): same epoch, and here the same role.
          const lookups = sessionLookups();
          const users = new Map(
            await Promise.all([...new Set(sessions.map((s) => s.username))].map(async (u) => [u, await lookups.user(u)] as const)),
          );
          return sessions.map((s, i) => {
            const user = users.get(s.username);
            return open[i] && user?.sessionEpoch === s.sessionEpoch && user.role === s.role;
          });
        },
        redisState: () => redisWatch().state(),
      }),
  );
}

/** JSON error answers, as live routes give them (dashboard/live/live-route.ts). */
function refuse(err: AppError): NextResponse {
  return NextResponse.json({ code: err.code, message: err.message }, { status: err.status, headers: { 'Cache-Control': 'no-store' } });
}

/**
 * `GET /api/live/stream?s=<live URL>&s=…`: one tab's Server-Sent Events. Checks, in order:
 * each subject is a live URL the stream carries (400), the session is open (401; 503
 * while Redis is away), and the hub's bounds (400, 429, 503). Then the stream: events
 * `redis`, `data` ({s, v}), `failure` ({s, code, message}), `heartbeat` and `closed`.
 */
export async function liveStream(subjects: string[], signal: AbortSignal): Promise<Response> {
  const unknown = subjects.find((s) => !streamReadOf(s));
  if (unknown !== undefined) return refuse(new AppError('VALIDATION', `Not a live subject the stream carries: ${unknown.slice(0, 200)}`));
  let session: ReturnType<typeof sessionDataSchema.safeParse>;
  try {
    const user = await currentUser();
    if (!user) return refuse(new AppError('UNAUTHENTICATED', 'Sign in first'));
    session = sessionDataSchema.safeParse({ ...(await getSession()), role: user.role });
  } catch (err) {
    return refuse(isAppError(err) && err.code === 'UNAVAILABLE' ? err : new AppError('UNAVAILABLE', 'Redis is unreachable'));
  }
  if (!session.success) return refuse(new AppError('UNAUTHENTICATED', 'Sign in first'));
  const { sid, username, sessionEpoch, role } = session.data;

  let handle: { close(): void } | undefined;
  let refused: unknown;
  const body = new ReadableStream<Uint8Array>(
    {
      // Runs within the constructor, so a refusal is known before any answer is made.
      start(controller) {
        const sink: StreamSink = {
          write(chunk) {
            controller.enqueue(chunk);
            return (controller.desiredSize ?? 0) > 0;
          },
          end: () => controller.close(),
        };
        try {
          handle = liveHub().open({ sid, username, sessionEpoch, role }, subjects, sink);
        } catch (err) {
          refused = err;
        }
      },
      cancel: () => handle?.close(),
    },
    { highWaterMark: MAX_QUEUED_BYTES, size: (chunk) => chunk.byteLength },
  );
  if (refused !== undefined) {
    if (isAppError(refused)) return refuse(refused);
    throw refused;
  }
  signal.addEventListener('abort', () => handle?.close(), { once: true });
  return new Response(body, {
    headers: {
      'Content-Type': 'text/event-stream; charset=utf-8',
      // no-transform: no compression middleware or proxy holds the events back to pack them.
      'Cache-Control': 'no-store, no-transform',
      // nginx passes each event at once (deploy/nginx/bullpen.conf turns buffering off as well).
      'X-Accel-Buffering': 'no',
    },
  });
}
