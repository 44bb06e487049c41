'use client';

import { useEffect, useState } from 'react';
import { unreachableSentence } from '@/dashboard/client/runtime-shared';
import { useLiveStream } from './live-stream';
import { useRedisState } from './redis-status';

/**
 * A small "live · updated 12:03:04 / error" indicator for a live widget, saying whether
 * the tab's stream pushes it or it polls (`data-stream`: open, polling, connecting, off). The time
 * appears after hydration only: the server's clock and time zone are not the browser's.
 */
export function LiveStatus({ updatedAt, error, fetching }: { updatedAt: number; error: Error | null; fetching: boolean }) {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  const redis = useRedisState();
  const { state: stream } = useLiveStream();
  const how = stream.mode === 'open' ? ' · pushed' : stream.mode === 'polling' ? ' · polling' : '';
  if (redis && !redis.reachable) {
    // The server cannot refresh what it holds: never "live" then, whatever the last poll said.
    return (
      <span
        className="small"
        role="status"
        style={{ color: 'var(--danger)' }}
        data-testid="live-status"
        data-live="stale"
        data-stream={stream.mode}
      >
        Not live: {unreachableSentence(redis)}
        {mounted && updatedAt ? `; showing data from ${new Date(updatedAt).toLocaleTimeString()}` : ''}
      </span>
    );
  }
  if (error) {
    return (
      <span
        className="small"
        role="status"
        style={{ color: 'var(--danger)' }}
        data-testid="live-status"
        data-live="error"
        data-stream={stream.mode}
      >
        Live update failed: {error.message}
      </span>
    );
  }
  return (
    <span className="small muted" data-testid="live-status" data-live={fetching ? 'fetching' : 'idle'} data-stream={stream.mode}>
      ● live{how}
      {mounted && updatedAt ? ` · updated ${new Date(updatedAt).toLocaleTimeString()}` : ''}
    </span>
  );
}
