'use client';

import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Button, type ButtonVariant } from './button';

/** What a `ConfirmPrompt` asks, and what runs on yes. */
export interface ConfirmRequest {
  title: string;
  description: ReactNode;
  confirmLabel: string;
  /** @defaultValue 'primary' */
  variant?: ButtonVariant;
  onConfirm(): void | Promise<void>;
}

export interface ConfirmPromptProps {
  /** Opens the dialog when set; `onClosed` is called once it closes (confirmed or not). */
  request: ConfirmRequest | null;
  onClosed(): void;
  /** The dialog is `${testId}-dialog`, its confirm button `${testId}-confirm`. */
  testId: string;
}

/**
 * `ConfirmDialog` without its trigger button: the same native modal <dialog> (focus
 * trapped, Esc closes), opened by the caller, e.g. a keyboard shortcut acting on a row.
 * The focus goes back where it was when the dialog opened.
 */
export function ConfirmPrompt({ request, onClosed, testId }: ConfirmPromptProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!request || !dialog || dialog.open) return;
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal();
  }, [request]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      data-testid={`${testId}-dialog`}
      onClose={() => {
        const back = opener.current;
        opener.current = null;
        if (back?.isConnected) back.focus();
        onClosed();
      }}
    >
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          ref.current?.close();
          if (request) void request.onConfirm();
        }}
      >
        <h2 id={titleId}>{request?.title}</h2>
        <div>{request?.description}</div>
        <div className="actions">
          <Button onClick={() => ref.current?.close()}>Cancel</Button>
          <Button type="submit" variant={request?.variant ?? 'primary'} data-testid={`${testId}-confirm`}>
            {request?.confirmLabel ?? 'Confirm'}
          </Button>
        </div>
      </form>
    </dialog>
  );
}
