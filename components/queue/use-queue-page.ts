'use client';

import type { QueuePage } from '@/dashboard/client/read-models';
import { liveUrls, queryKeys } from '@/dashboard/client/query-keys';
import { useLiveQuery } from '@/components/live/use-live-query';

/** One queue page (state, page, filters in `search`), pushed by the tab's stream or polled while visible. */
export function useQueuePage(name: string, search: string, initial: QueuePage) {
  return useLiveQuery<QueuePage>(liveUrls.queue(name, search), {
    queryKey: queryKeys.queue(name, search),
    initialData: initial,
  });
}
