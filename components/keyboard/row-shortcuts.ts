'use client';

import { useEffect, useRef } from 'react';
import { nextRowIndex, type RowCommand } from '@/dashboard/client/shortcuts';

/** The window event `KeyboardShortcuts` sends for `j`, `k`, Enter on a row, and `r`. */
export const ROW_SHORTCUT_EVENT = 'bullpen:row-shortcut';

/** The attribute that makes a table row a stop for `j`/`k`; its value is the row's id. */
export const SHORTCUT_ROW_ATTR = 'data-shortcut-row';

/** Spread on a results-table `<tr>`: focusable by script (not a Tab stop), found by `j`/`k`. */
export function shortcutRowProps(id: string) {
  return { tabIndex: -1, [SHORTCUT_ROW_ATTR]: id } as const;
}

export interface RowShortcutHandlers {
  /** Enter on the focused row. */
  open(id: string): void;
  /** `r` with the focus on or in a row; absent where the row has no such action (viewers, other tabs). */
  act?(id: string, row: HTMLElement): void;
}

/**
 * A results table's side of the shortcuts: `j`/`k` move the focus along its rows (the
 * `<tr>`s given `shortcutRowProps`), Enter opens the focused one and `r` acts on it.
 * One results table per page, so the rows are found in the document.
 */
export function useRowShortcuts(handlers: RowShortcutHandlers): void {
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  });
  useEffect(() => {
    const onCommand = (event: Event) => {
      const command = (event as CustomEvent<RowCommand>).detail;
      const rows = Array.from(document.querySelectorAll<HTMLElement>(`[${SHORTCUT_ROW_ATTR}]`));
      const current = rows.findIndex((r) => r.contains(document.activeElement));
      if (command === 'next' || command === 'prev') {
        const row = rows[nextRowIndex(current, rows.length, command)];
        row?.focus();
        row?.scrollIntoView({ block: 'nearest' });
        return;
      }
      const row = rows[current];
      const id = row?.getAttribute(SHORTCUT_ROW_ATTR);
      if (!row || !id) return;
      if (command === 'open') latest.current.open(id);
      else latest.current.act?.(id, row);
    };
    window.addEventListener(ROW_SHORTCUT_EVENT, onCommand);
    return () => window.removeEventListener(ROW_SHORTCUT_EVENT, onCommand);
  }, []);
}
