'use client';

import { useQuery } from '@tanstack/react-query';
import type { Overview } from '@/dashboard/client/read-models';
import { liveUrls, queryKeys } from '@/dashboard/client/query-keys';
import { fetchJson } from '@/components/live/fetch-json';

/** The overview, polled every 3 s while the tab is visible; every widget shares this one query. */
export function useOverview(initial: Overview) {
  return useQuery({
    queryKey: queryKeys.overview(),
    queryFn: ({ signal }) => fetchJson<Overview>(liveUrls.overview(), signal),
    initialData: initial,
    initialDataUpdatedAt: initial.generatedAt,
  });
}
