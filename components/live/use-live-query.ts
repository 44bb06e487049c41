'use client';

import { type DefinedUseQueryResult, type QueryKey, useQuery, type UseQueryOptions } from '@tanstack/react-query';
import { useEffect } from 'react';
import { fetchJson } from './fetch-json';
import { useLiveStream, useStreamed } from './live-stream';

type Options<T> = Omit<UseQueryOptions<T, Error, T, QueryKey>, 'queryFn' | 'initialData'> & { initialData: T };

/**
 * A live view's query: fed by the tab's stream while it carries `url`
 * (components/live/live-stream.tsx), polled at its usual interval otherwise. Its data and
 * its poll are the same JSON, so the view cannot tell them apart.
 */
export function useLiveQuery<T>(url: string, opts: Options<T>): DefinedUseQueryResult<T, Error> {
  const { subscribe } = useLiveStream();
  const { queryKey } = opts;
  const keyHash = JSON.stringify(queryKey);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the key's content, not its identity, names the subscription.
  useEffect(() => subscribe(url, queryKey), [subscribe, url, keyHash]);
  const streamed = useStreamed(url);
  // Left out, not undefined, when polling: an undefined option would hide the client's default interval.
  const pushed = streamed ? { refetchInterval: false as const, refetchOnWindowFocus: false } : {};
  // initialData is required above, so the data is always defined (useQuery's own overload cannot see it through the spread).
  return useQuery<T, Error, T, QueryKey>({
    ...opts,
    queryFn: ({ signal }) => fetchJson<T>(url, signal),
    ...pushed,
  }) as DefinedUseQueryResult<T, Error>;
}
