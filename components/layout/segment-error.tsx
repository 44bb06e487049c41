'use client';

import { useRedisState } from '@/components/live/redis-status';
import { unreachableSentence } from '@/dashboard/client/runtime-shared';

/**
 * The body of every segment's error.tsx: says what failed, the digest to grep the
 * server log for, and offers a retry (a transient Redis hiccup usually clears).
 */
export function SegmentError({ error, reset, what }: { error: Error & { digest?: string }; reset(): void; what: string }) {
  const redis = useRedisState();
  return (
    <div className="card" role="alert" data-testid="segment-error">
      <h1>Could not load {what}</h1>
      {redis && !redis.reachable && <p data-testid="segment-error-redis">{unreachableSentence(redis)}: try again once it is back.</p>}
      <p>
        The server could not read what this page needs. If Redis is restarting this clears by itself; otherwise check the dashboard log
        {error.digest ? (
          <>
            {' '}
            for <code>{error.digest}</code>
          </>
        ) : null}
        .
      </p>
      <button type="button" className="btn btn-primary" onClick={() => reset()}>
        Try again
      </button>
    </div>
  );
}
