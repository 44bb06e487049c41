'use client';

import type { Overview } from '@/dashboard/client/read-models';
import { liveUrls, queryKeys } from '@/dashboard/client/query-keys';
import { useLiveQuery } from '@/components/live/use-live-query';

/** The overview, pushed by the tab's stream (polled every 3 s without it); every widget shares this one query. */
export function useOverview(initial: Overview) {
  return useLiveQuery<Overview>(liveUrls.overview(), {
    queryKey: queryKeys.overview(),
    initialData: initial,
    initialDataUpdatedAt: initial.generatedAt,
  });
}
