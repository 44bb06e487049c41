'use client';

import { type QueryKey, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { liveUrls, STREAM_RETRY_MAX_MS, STREAM_RETRY_MS, STREAM_SILENCE_MS } from '@/dashboard/client/query-keys';
import { SseParser } from '@/dashboard/client/sse-parser';
import type { RedisState } from '@/dashboard/client/runtime-shared';

/**
 * What the tab's stream does now: `off` (nothing to stream, hidden, signed out), `connecting`,
 * `open` (the subjects in `subjects` are pushed), or `polling` (it could not open or broke:
 * `reason` says why, and every live view polls until it is back).
 */
export type StreamState =
  | { mode: 'off' | 'connecting' }
  | { mode: 'open'; subjects: ReadonlySet<string>; redis?: RedisState }
  | { mode: 'polling'; reason: string; since: number };

interface LiveStreamContext {
  state: StreamState;
  subscribe(subject: string, queryKey: QueryKey): () => void;
}

const Context = createContext<LiveStreamContext>({ state: { mode: 'off' }, subscribe: () => () => undefined });

/** The tab's stream state (components/live/live-status.tsx shows it). */
export function useLiveStream(): LiveStreamContext {
  return useContext(Context);
}

/** Whether `subject` is pushed to this tab now (its query then does not poll). */
export function useStreamed(subject: string): boolean {
  const { state } = useLiveStream();
  return state.mode === 'open' && state.subjects.has(subject);
}

/** The words a tab shows for a refusal or a break. */
async function refusalReason(res: Response): Promise<string> {
  const body = (await res.json().catch(() => ({}))) as { message?: string };
  return `the live stream was refused (HTTP ${res.status}${body.message ? `: ${body.message}` : ''})`;
}

/**
 * One Server-Sent Events stream per tab for every live view it shows
 * (docs/dashboard.md, "Live updates"): each view subscribes its live URL and query key;
 * the stream is (re)opened for the set of URLs, its `data` events go into react-query's
 * cache with setQueryData, and its `redis` events tell the outage banner. It is read
 * with fetch, so a refusal's status and words reach the page. A stream that cannot open,
 * ends, or is silent for STREAM_SILENCE_MS (a heartbeat comes at least every 2 s) turns
 * the tab to polling and says so, and is tried again later. Closed while the tab is
 * hidden, as polls pause then.
 */
export function LiveStreamProvider({ enabled, children }: { enabled: boolean; children: ReactNode }) {
  const client = useQueryClient();
  const subs = useRef(new Map<string, { count: number; queryKey: QueryKey }>());
  const [subjects, setSubjects] = useState<string[]>([]);
  const [state, setState] = useState<StreamState>({ mode: 'off' });
  const [visible, setVisible] = useState(true);
  const [attempt, setAttempt] = useState(0);
  const recompute = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const subscribe = useCallback((subject: string, queryKey: QueryKey) => {
    const entry = subs.current.get(subject) ?? { count: 0, queryKey };
    entry.count++;
    entry.queryKey = queryKey;
    subs.current.set(subject, entry);
    // One reopen for the views a navigation mounts and unmounts together.
    clearTimeout(recompute.current);
    recompute.current = setTimeout(() => {
      const next = [...subs.current.keys()].sort();
      setSubjects((prev) => (prev.join('\n') === next.join('\n') ? prev : next));
    }, 50);
    return () => {
      const e = subs.current.get(subject);
      if (e && --e.count <= 0) subs.current.delete(subject);
      clearTimeout(recompute.current);
      recompute.current = setTimeout(() => {
        const next = [...subs.current.keys()].sort();
        setSubjects((prev) => (prev.join('\n') === next.join('\n') ? prev : next));
      }, 50);
    };
  }, []);

  useEffect(() => {
    const onVisibility = () => setVisible(document.visibilityState !== 'hidden');
    onVisibility();
    document.addEventListener('visibilitychange', onVisibility);
    return () => document.removeEventListener('visibilitychange', onVisibility);
  }, []);

  const retryDelay = useRef(STREAM_RETRY_MS);
  // biome-ignore lint/correctness/useExhaustiveDependencies: attempt is the trigger: a fallback's retry timer bumps it to open the stream again.
  useEffect(() => {
    if (!enabled || !visible || subjects.length === 0) {
      setState({ mode: 'off' });
      return;
    }
    const abort = new AbortController();
    let lastEventAt = Date.now();
    let retry: ReturnType<typeof setTimeout> | undefined;
    let watchdog: ReturnType<typeof setInterval> | undefined;
    let done = false;
    const fallBack = (reason: string) => {
      if (done) return;
      done = true;
      abort.abort();
      clearInterval(watchdog);
      setState({ mode: 'polling', reason, since: Date.now() });
      // Every view polls again now, not at its next interval.
      for (const { queryKey } of subs.current.values()) void client.invalidateQueries({ queryKey });
      retry = setTimeout(() => setAttempt((n) => n + 1), retryDelay.current);
      retryDelay.current = Math.min(retryDelay.current * 2, STREAM_RETRY_MAX_MS);
    };
    setState({ mode: 'connecting' });
    void (async () => {
      let res: Response;
      try {
        res = await fetch(liveUrls.stream(subjects), { signal: abort.signal, headers: { accept: 'text/event-stream' }, cache: 'no-store' });
      } catch {
        return fallBack('the live stream could not be opened');
      }
      if (res.status === 401) {
        window.location.assign(`/sign-in?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
        return;
      }
      if (!res.ok || !res.body) return fallBack(await refusalReason(res));
      retryDelay.current = STREAM_RETRY_MS;
      lastEventAt = Date.now();
      const open = new Set(subjects);
      setState({ mode: 'open', subjects: open });
      watchdog = setInterval(() => {
        if (Date.now() - lastEventAt > STREAM_SILENCE_MS) fallBack(`the live stream went silent for ${STREAM_SILENCE_MS / 1000} s`);
      }, 500);
      const parser = new SseParser();
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      try {
        for (;;) {
          const { value, done: ended } = await reader.read();
          if (ended) break;
          lastEventAt = Date.now();
          for (const ev of parser.push(value)) {
            if (ev.event === 'data') {
              const { s, v } = JSON.parse(ev.data) as { s: string; v: unknown };
              const sub = subs.current.get(s);
              if (sub) client.setQueryData(sub.queryKey, v);
            } else if (ev.event === 'failure') {
              // The view's own request gets the error with its status, and shows it.
              const sub = subs.current.get((JSON.parse(ev.data) as { s: string }).s);
              if (sub) void client.refetchQueries({ queryKey: sub.queryKey });
            } else if (ev.event === 'redis') {
              const redis = JSON.parse(ev.data) as RedisState;
              setState({ mode: 'open', subjects: open, redis });
            } else if (ev.event === 'closed') {
              const { reason } = JSON.parse(ev.data) as { reason: string };
              if (reason === 'signed-out') {
                window.location.assign(`/sign-in?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
              }
              return fallBack(`the dashboard closed the live stream (${reason})`);
            }
          }
        }
        fallBack('the live stream ended');
      } catch {
        fallBack('the live stream broke');
      }
    })();
    return () => {
      done = true;
      abort.abort();
      clearInterval(watchdog);
      clearTimeout(retry);
    };
  }, [enabled, visible, subjects, client, attempt]);

  const value = useMemo(() => ({ state, subscribe }), [state, subscribe]);
  return <Context.Provider value={value}>{children}</Context.Provider>;
}

/**
 * "Live updates interrupted: …" on top of the page while the stream is down and the
 * tab polls instead; it goes away when the stream is back.
 */
export function LiveStreamNotice() {
  const { state } = useLiveStream();
  if (state.mode !== 'polling') return null;
  return (
    <div className="stream-notice small" role="status" data-testid="stream-notice" data-since={state.since}>
      Live updates interrupted: {state.reason}. This tab polls every few seconds until the stream is back.
    </div>
  );
}
