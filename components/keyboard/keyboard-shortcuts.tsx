'use client';

import { useRouter } from 'next/navigation';
import { Fragment, useEffect, useId, useRef } from 'react';
import { Button } from '@/components/ui/button';
import { IDLE, isTypingTarget, readShortcut, SHORTCUT_HELP, type SequenceState } from '@/dashboard/client/shortcuts';
import { ROW_SHORTCUT_EVENT, SHORTCUT_ROW_ATTR } from './row-shortcuts';

/** The attribute that marks a page's search or filter field for `/` (the first one in the page wins). */
export const SHORTCUT_SEARCH_ATTR = 'data-shortcut-search';

/**
 * The dashboard's keyboard shortcuts, mounted once for a signed-in user: one keydown
 * listener runs each press through `readShortcut` (dashboard/client/shortcuts.ts) and
 * carries out its command: focus the search field, go to a section, hand a row command
 * to the page's results table (`useRowShortcuts`), or open the `?` dialog.
 */
export function KeyboardShortcuts({ canOperate }: { canOperate: boolean }) {
  const router = useRouter();
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const sequence = useRef<SequenceState>(IDLE);
  const titleId = useId();

  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const target = e.target instanceof HTMLElement ? e.target : null;
      const { state, command } = readShortcut(
        sequence.current,
        e,
        {
          typing: isTypingTarget(target),
          modalOpen: document.querySelector('dialog[open]') !== null,
          onRow: target?.hasAttribute(SHORTCUT_ROW_ATTR) ?? false,
        },
        Date.now(),
      );
      sequence.current = state;
      if (state.prefix) e.preventDefault();
      if (!command) return;
      e.preventDefault();
      switch (command.kind) {
        case 'search': {
          const field = document.querySelector<HTMLElement>(`[${SHORTCUT_SEARCH_ATTR}]`);
          field?.focus();
          if (field instanceof HTMLInputElement) field.select();
          break;
        }
        case 'go':
          router.push(command.href);
          break;
        case 'help':
          opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
          dialog.current?.showModal();
          break;
        case 'row':
          window.dispatchEvent(new CustomEvent(ROW_SHORTCUT_EVENT, { detail: command.command }));
          break;
      }
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [router]);

  return (
    <dialog
      ref={dialog}
      aria-labelledby={titleId}
      className="shortcuts-dialog"
      data-testid="shortcuts-dialog"
      onClose={() => {
        const back = opener.current;
        opener.current = null;
        if (back?.isConnected) back.focus();
      }}
    >
      <h2 id={titleId}>Keyboard shortcuts</h2>
      <p className="small muted">Not while typing in a field. Press the keys one after the other.</p>
      <dl className="dl shortcuts-list" data-testid="shortcuts-list">
        {SHORTCUT_HELP.filter((h) => canOperate || !h.operatorOnly).map((h) => (
          <Fragment key={h.keys.join(' ')}>
            <dt data-testid="shortcut-keys">
              {h.keys.map((k, i) => (
                <Fragment key={k}>
                  {i > 0 && <span className="muted"> then </span>}
                  <kbd>{k}</kbd>
                </Fragment>
              ))}
            </dt>
            <dd>{h.what}</dd>
          </Fragment>
        ))}
      </dl>
      <div className="actions">
        <Button onClick={() => dialog.current?.close()} data-testid="shortcuts-close">
          Close
        </Button>
      </div>
    </dialog>
  );
}
