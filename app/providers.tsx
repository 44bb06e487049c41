'use client';

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { LIVE_REFETCH_MS } from '@/dashboard/client/query-keys';

/** One QueryClient per browser tab: polls every 3 s, never while the tab is hidden. */
export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: {
            refetchInterval: LIVE_REFETCH_MS,
            refetchIntervalInBackground: false,
            refetchOnWindowFocus: true,
            staleTime: 1_000,
            retry: 1,
          },
        },
      }),
  );
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
