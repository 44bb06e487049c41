'use client';

import { useQuery } from '@tanstack/react-query';
import type { QueuePage } from '@/dashboard/client/read-models';
import { liveUrls, queryKeys } from '@/dashboard/client/query-keys';
import { fetchJson } from '@/components/live/fetch-json';

/** One queue page (state, page, filters in `search`), polled while visible. */
export function useQueuePage(name: string, search: string, initial: QueuePage) {
  return useQuery({
    queryKey: queryKeys.queue(name, search),
    queryFn: ({ signal }) => fetchJson<QueuePage>(liveUrls.queue(name, search), signal),
    initialData: initial,
  });
}
