import type { ButtonHTMLAttributes, Ref } from 'react';

export type ButtonVariant = 'default' | 'primary' | 'danger' | 'ghost';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  /** @defaultValue 'default' */
  variant?: ButtonVariant;
  /** @defaultValue 'md' */
  size?: 'sm' | 'md';
  /** React 19 passes `ref` as a prop: the caller can move the focus back after an action. */
  ref?: Ref<HTMLButtonElement>;
}

/** A real <button> (type="button" unless said otherwise), so it is keyboard-usable and never submits by accident. */
export function Button({ variant = 'default', size = 'md', className, type = 'button', ...rest }: ButtonProps) {
  const cls = ['btn', variant !== 'default' && `btn-${variant}`, size === 'sm' && 'btn-sm', className].filter(Boolean).join(' ');
  return <button type={type} className={cls} {...rest} />;
}
