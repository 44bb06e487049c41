import 'server-only';
import { redisWatch } from '@/dashboard/dashboard-process';
import { AppError } from '@/lib/errors/app-error';
import { TimeoutError } from '@/lib/errors/timeout-error';
import { unreachableSentence } from '@/lib/health/redis-watch';
import { withTimeLimit } from '@/lib/health/time-limit';

/** A session check (is the session open, who is the user) answers in a millisecond or two; past this Redis is hung. */
export const SESSION_READ_MS = 2_000;
/** A live read (a page of jobs, the overview) may take a while on a big queue; past this a tab is told, not kept waiting. */
export const LIVE_READ_MS = 8_000;

/**
 * Runs a read that needs Redis within `ms`. While the process's watch says Redis is
 * unreachable it fails at once, a read in flight when the watch finds Redis away fails
 * then, and a read that runs out of time marks it unreachable:
 * a tab, page or action is answered "Redis unreachable since …" in bounded time
 * instead of waiting on a hung server, and no cache serves its old value meanwhile.
 */
export async function boundedRead<T>(what: string, read: () => Promise<T>, ms: number): Promise<T> {
  const watch = redisWatch();
  const now = watch.state();
  if (!now.reachable) throw unreachable(now.since);
  // Redis found away by the watch meanwhile (a PING, or another read): answer now, not at this read's own limit.
  const away = watch.untilUnreachable();
  try {
    return await Promise.race([
      withTimeLimit(read(), ms, what),
      away.promise.then(() => {
        throw unreachable(watch.state().since);
      }),
    ]);
  } catch (err) {
    if (!(err instanceof TimeoutError)) throw err;
    watch.markUnreachable('timeout');
    throw unreachable(watch.state().since);
  } finally {
    away.cancel();
  }
}

function unreachable(since: number): AppError {
  return new AppError('UNAVAILABLE', unreachableSentence({ since }), { redis: 'unreachable', since });
}
