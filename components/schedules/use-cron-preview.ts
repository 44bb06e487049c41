'use client';

import { useEffect, useState } from 'react';
import { fetchJson } from '@/components/live/fetch-json';
import type { CronPreview } from '@/dashboard/client/runtime-shared';

export type PreviewState =
  | { status: 'loading'; last?: CronPreview }
  | { status: 'done'; preview: CronPreview }
  | { status: 'error'; message: string };

/**
 * Asks the server for a pattern's next fire times as the operator types, once typing
 * pauses for `delayMs`; a newer keystroke aborts the request in flight, so an old
 * answer never overwrites a newer one.
 */
export function useCronPreview(url: string, pattern: string, tz: string, delayMs = 300): PreviewState {
  const [state, setState] = useState<PreviewState>({ status: 'loading' });
  useEffect(() => {
    const ctrl = new AbortController();
    setState((s) => ({ status: 'loading', last: s.status === 'done' ? s.preview : s.status === 'loading' ? s.last : undefined }));
    const timer = setTimeout(() => {
      const qs = new URLSearchParams({ pattern, tz });
      fetchJson<CronPreview>(`${url}?${qs}`, ctrl.signal)
        .then((preview) => setState({ status: 'done', preview }))
        .catch((err: unknown) => {
          if (!ctrl.signal.aborted) setState({ status: 'error', message: (err as Error)?.message ?? String(err) });
        });
    }, delayMs);
    return () => {
      clearTimeout(timer);
      ctrl.abort();
    };
  }, [url, pattern, tz, delayMs]);
  return state;
}
