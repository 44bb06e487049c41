'use client';

import { useActionState, useState } from 'react';
import type { ActionResult } from '@/dashboard/client/action-result';
import { InlineResult } from '@/components/ui/inline-result';

type SignInAction = (prev: ActionResult<null> | null, form: FormData) => Promise<ActionResult<null>>;

export function SignInForm({ action, next }: { action: SignInAction; next: string }) {
  const [state, formAction, pending] = useActionState(action, null);
  // Controlled, so React's reset of the form after a failed attempt keeps the name.
  const [username, setUsername] = useState('');
  const fieldErrors = state && !state.ok ? state.fieldErrors : undefined;
  return (
    <form action={formAction} data-testid="sign-in-form">
      <input type="hidden" name="next" value={next} />
      <div className="field">
        <label htmlFor="username">User name</label>
        <input
          id="username"
          name="username"
          autoComplete="username"
          required
          // biome-ignore lint/a11y/noAutofocus: the sign-in page has one task, and the name field is it.
          autoFocus
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          data-testid="sign-in-username"
        />
        {fieldErrors?.username && <span className="field-error">{fieldErrors.username.join(' ')}</span>}
      </div>
      <div className="field">
        <label htmlFor="password">Password</label>
        <input id="password" name="password" type="password" autoComplete="current-password" required data-testid="sign-in-password" />
        {fieldErrors?.password && <span className="field-error">{fieldErrors.password.join(' ')}</span>}
      </div>
      <button type="submit" className="btn btn-primary" disabled={pending} data-testid="sign-in-submit">
        {pending ? 'Signing in…' : 'Sign in'}
      </button>
      {state && !state.ok && <InlineResult result={state} testId="sign-in-error" />}
    </form>
  );
}
