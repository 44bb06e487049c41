'use client';

import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { fetchJson } from '@/components/live/fetch-json';
import { liveUrls, queryKeys, REDIS_REFETCH_MS } from '@/dashboard/client/query-keys';
import { type RedisState, unreachableSentence } from '@/dashboard/client/runtime-shared';
import { useLiveStream } from './live-stream';

const RedisStateContext = createContext<RedisState | undefined>(undefined);

/** What this tab last heard about Redis (undefined before the first answer, or signed out). */
export function useRedisState(): RedisState | undefined {
  return useContext(RedisStateContext);
}

/** The answer comes from the dashboard's memory in milliseconds; a request that hangs longer is given up. */
const REDIS_FETCH_LIMIT_MS = 3_000;

/**
 * The dashboard's Redis state (lib/health/redis-watch.ts: the server PINGs with a short
 * limit and never asks Redis to answer this), for the outage banner and for every widget
 * that must not call stale data live: pushed by the tab's stream when it is open
 * (components/live/live-stream.tsx), polled every second otherwise.
 */
export function RedisStatusProvider({ enabled, children }: { enabled: boolean; children: ReactNode }) {
  const { state: stream } = useLiveStream();
  const pushed = stream.mode === 'open' ? stream.redis : undefined;
  const q = useQuery({
    queryKey: queryKeys.redis(),
    queryFn: ({ signal }) => fetchJson<RedisState>(liveUrls.redis(), AbortSignal.any([signal, AbortSignal.timeout(REDIS_FETCH_LIMIT_MS)])),
    refetchInterval: REDIS_REFETCH_MS,
    staleTime: 0,
    retry: false,
    enabled: enabled && !pushed,
  });
  return <RedisStateContext.Provider value={enabled ? (pushed ?? q.data) : undefined}>{children}</RedisStateContext.Provider>;
}

/** "Redis unreachable since 09:41:18 UTC" on top of every page while it lasts; it goes away by itself. */
export function RedisBanner() {
  const state = useRedisState();
  if (!state || state.reachable) return null;
  return (
    <div className="redis-banner" role="alert" data-testid="redis-banner" data-since={state.since}>
      <strong>{unreachableSentence(state)}.</strong>{' '}
      <span>What this page shows is from before then, and actions fail until it is back; this notice clears by itself.</span>
    </div>
  );
}
