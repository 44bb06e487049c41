'use client';

import { type FocusEvent, useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { type Held, holdRows, newIds } from '@/dashboard/client/held-rows';

const NONE: ReadonlySet<string> = new Set();

export interface HeldRows<R> extends Held<R> {
  /** Shows the held-back rows now, in the fresh order (the operator asked for it). */
  showArrived(): void;
  /** What the last unheld refresh added, for a polite live region ('' when nothing). */
  announcement: string;
  /** Spread on the element that wraps the list: pointer and focus inside it hold the rows. */
  holdProps: {
    onPointerEnter(): void;
    onPointerLeave(): void;
    onFocus(): void;
    onBlur(e: FocusEvent<HTMLElement>): void;
  };
}

/**
 * A live list's rows, held still while the operator works on them: while the pointer or
 * the focus is in the list, or `selecting` is true, refreshes update rows in place and
 * hold new ones back (see dashboard/client/held-rows.ts). Otherwise the fresh rows show as
 * they come, and the ones a refresh added are announced.
 */
export function useHeldRows<R extends { id: string }>(
  fresh: R[],
  opts: { selecting: boolean; describeNew(count: number): string },
): HeldRows<R> {
  const [pointer, setPointer] = useState(false);
  const [focus, setFocus] = useState(false);
  const hold = opts.selecting || pointer || focus;
  const shown = useRef<R[]>(fresh);
  const held = useRef<R[] | null>(null);
  const latest = useRef(fresh);
  latest.current = fresh;
  const [, rerender] = useReducer((n: number) => n + 1, 0);

  // Computed during render from refs on purpose: holdRows is idempotent on its own output,
  // so a repeated render (strict mode) gives the same rows.
  let result: Held<R>;
  if (hold) {
    result = holdRows(held.current ?? shown.current, fresh);
    held.current = result.rows;
  } else {
    held.current = null;
    result = { rows: fresh, departed: NONE, arrived: [] };
  }
  shown.current = result.rows;

  const [announcement, setAnnouncement] = useState('');
  const announced = useRef(result.rows);
  const { describeNew } = opts;
  useEffect(() => {
    const added = newIds(announced.current, result.rows);
    announced.current = result.rows;
    if (added.length) setAnnouncement(describeNew(added.length));
  }, [result.rows, describeNew]);

  const showArrived = useCallback(() => {
    held.current = latest.current;
    rerender();
  }, []);

  return {
    ...result,
    showArrived,
    announcement,
    holdProps: {
      onPointerEnter: () => setPointer(true),
      onPointerLeave: () => setPointer(false),
      onFocus: () => setFocus(true),
      onBlur: (e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setFocus(false);
      },
    },
  };
}
