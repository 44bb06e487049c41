'use client';

import { useId, useRef, useState, type ReactNode } from 'react';
import { Button, type ButtonVariant } from './button';

export interface ConfirmDialogProps {
  /** The button that opens the dialog. */
  triggerLabel: ReactNode;
  title: string;
  description: ReactNode;
  /** @defaultValue 'Confirm' */
  confirmLabel?: string;
  /** @defaultValue 'danger' */
  variant?: ButtonVariant;
  /** When set, the confirm button stays disabled until this exact text is typed (bulk destruction). */
  requireText?: string;
  disabled?: boolean;
  /** The confirm button stays disabled while this holds (what it confirms is still being counted). */
  confirmDisabled?: boolean;
  onConfirm(): void | Promise<void>;
  /** Called as the dialog opens (to load what its description shows). */
  onOpen?(): void;
  /** data-testid of the trigger; the dialog's confirm button gets `${testId}-confirm`. */
  testId?: string;
  /** data-row-action of the trigger: what a row's keyboard shortcut presses (components/keyboard/row-shortcuts.ts). */
  rowAction?: string;
  size?: 'sm' | 'md';
  /** More of the dialog's form, between the description and its buttons (a field the confirmation needs). */
  children?: ReactNode;
}

/** A native modal <dialog> (focus trapped, Esc closes) in front of a destructive action. */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState('');
  const titleId = useId();
  const inputId = useId();
  const blocked = (props.requireText !== undefined && typed !== props.requireText) || props.confirmDisabled === true;
  return (
    <>
      <Button
        variant={props.variant ?? 'danger'}
        size={props.size}
        disabled={props.disabled}
        data-testid={props.testId}
        data-row-action={props.rowAction}
        onClick={() => {
          setTyped('');
          props.onOpen?.();
          ref.current?.showModal();
        }}
      >
        {props.triggerLabel}
      </Button>
      <dialog ref={ref} aria-labelledby={titleId} data-testid={props.testId ? `${props.testId}-dialog` : undefined}>
        <form
          method="dialog"
          onSubmit={(e) => {
            e.preventDefault();
            if (blocked) return;
            ref.current?.close();
            void props.onConfirm();
          }}
        >
          <h2 id={titleId}>{props.title}</h2>
          <div>{props.description}</div>
          {props.children}
          {props.requireText !== undefined && (
            <div className="field" style={{ marginTop: '0.75rem' }}>
              <label htmlFor={inputId}>
                Type <code>{props.requireText}</code> to confirm
              </label>
              <input id={inputId} value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />
            </div>
          )}
          <div className="actions">
            <Button onClick={() => ref.current?.close()}>Cancel</Button>
            <Button
              type="submit"
              variant={props.variant ?? 'danger'}
              disabled={blocked}
              data-testid={props.testId ? `${props.testId}-confirm` : undefined}
            >
              {props.confirmLabel ?? 'Confirm'}
            </Button>
          </div>
        </form>
      </dialog>
    </>
  );
}
