'use client';

import { useEffect, useState } from 'react';
import { postJson } from '@/components/live/fetch-json';
import { liveUrls } from '@/dashboard/client/query-keys';
import { parseJsonText, type PayloadCheck } from '@/dashboard/client/dead-letters-payload';

/** What an editor shows: the check, or that the server is still checking the latest text. */
export type LivePayloadCheck = PayloadCheck | { ok: false; stage: 'checking'; message: string };

export interface PayloadCheckState {
  check: LivePayloadCheck;
  /** The type's locked fields, as the server's job table lists them (empty until the first answer). */
  lockedFields: string[];
}

/**
 * Checks a payload as the operator types: JSON syntax at once in the browser, then the
 * job type's schema (and, with `original`, its locked fields) on the server once typing
 * pauses for `delayMs`, since the schemas live in the job table there. A newer
 * keystroke aborts the request in flight, so an old answer never overwrites a newer one.
 */
export function usePayloadCheck(type: string, text: string, original?: string, delayMs = 200): PayloadCheckState {
  const [state, setState] = useState<PayloadCheckState>({
    check: { ok: false, stage: 'checking', message: 'Checking…' },
    lockedFields: [],
  });
  // The locked-field list is read once per type; it is not a reason to check again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: state.lockedFields is read, not watched.
  useEffect(() => {
    const json = parseJsonText(text);
    if (!json.ok) {
      setState((s) => ({ ...s, check: { stage: 'json', ...json } }));
      // Still ask for the locked fields once, so the editor can list them.
      if (state.lockedFields.length > 0) return;
    } else {
      setState((s) => ({ ...s, check: { ok: false, stage: 'checking', message: 'Checking…' } }));
    }
    const ctrl = new AbortController();
    const timer = setTimeout(() => {
      postJson<PayloadCheck & { lockedFields: string[] }>(
        liveUrls.payloadCheck(),
        { type, text, ...(original !== undefined ? { original } : {}) },
        ctrl.signal,
      )
        .then(({ lockedFields, ...check }) => setState({ check: json.ok ? check : { stage: 'json', ...json }, lockedFields }))
        .catch((err: unknown) => {
          if (!ctrl.signal.aborted) {
            setState((s) => ({
              ...s,
              check: { ok: false, stage: 'type', message: `The check failed: ${(err as Error)?.message ?? String(err)}` },
            }));
          }
        });
    }, delayMs);
    return () => {
      clearTimeout(timer);
      ctrl.abort();
    };
  }, [type, text, original, delayMs]);
  return state;
}
