'use client';

import { useCallback, useState, useTransition } from 'react';
import type { ActionResult } from '@/dashboard/client/action-result';
import { explainFailedAction } from './failed-action';

/**
 * Runs a server action in a transition and keeps its typed result for <InlineResult>.
 * A thrown action (401/403 from the server, network down) becomes an error result too,
 * explained by `explainFailedAction`, so the operator always reads what happened.
 */
export function useAction<I, T>(action: (input: I) => Promise<ActionResult<T>>) {
  const [pending, startTransition] = useTransition();
  const [result, setResult] = useState<ActionResult<T> | null>(null);
  const run = useCallback(
    (input: I) =>
      new Promise<ActionResult<T>>((resolve) => {
        startTransition(async () => {
          let r: ActionResult<T>;
          try {
            r = await action(input);
          } catch (err) {
            r = await explainFailedAction(err);
          }
          setResult(r);
          resolve(r);
        });
      }),
    [action],
  );
  return { run, pending, result, reset: () => setResult(null) };
}
