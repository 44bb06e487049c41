'use client';

import type { ReactNode } from 'react';
import { Button } from '@/components/ui/button';
import type { HeldRows } from './use-held-rows';

/**
 * A live list held still under the operator's hand (useHeldRows): the polite announcement
 * of rows a refresh added, the notice of rows held back with its "Show them", and the list.
 * The notice sits inside the hold with the list: reaching for "Show them" must not leave
 * the held area and release the rows (the button would go away under the click).
 */
export function HeldList<R extends { id: string }>({
  held,
  describeNew,
  testIdPrefix,
  children,
}: {
  held: HeldRows<R>;
  describeNew(count: number): string;
  /** `jobs` or `dlq`: the notice is `<prefix>-arrived`, its button `<prefix>-show-arrived`. */
  testIdPrefix: string;
  children: ReactNode;
}) {
  return (
    <>
      <p className="sr-only" role="status" aria-live="polite" data-testid={`${testIdPrefix}-new-announcement`}>
        {held.announcement}
      </p>
      <div {...held.holdProps}>
        {held.arrived.length > 0 && (
          <div
            className="result info row"
            role="status"
            data-testid={`${testIdPrefix}-arrived`}
            style={{ justifyContent: 'space-between' }}
          >
            <span>{describeNew(held.arrived.length)} while you were working on the list; the rows stay where they are until you ask.</span>
            <Button size="sm" onClick={held.showArrived} data-testid={`${testIdPrefix}-show-arrived`}>
              Show {held.arrived.length === 1 ? 'it' : 'them'}
            </Button>
          </div>
        )}
        {children}
      </div>
    </>
  );
}
