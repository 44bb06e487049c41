import type { ActionResult } from '@/lib/dashboard/action-result';

/** What the session probe answered: its HTTP status and, when signed in, the user. */
export type SessionProbe = () => Promise<{ status: number; user?: { username: string; role: string } }>;

const probeSession: SessionProbe = async () => {
  const res = await fetch('/api/live/session', { cache: 'no-store', credentials: 'same-origin' });
  return { status: res.status, user: res.ok ? await res.json() : undefined };
};

/**
 * The result to show for a server action that threw in the browser. A 401 or 403 from
 * the server, a dropped connection and a server crash all reach the client as the same
 * opaque (in production, minified) error, so this asks the session endpoint which one
 * it was: a session that has ended gets "sign in again" instead of a React error code.
 */
export async function explainFailedAction(err: unknown, probe: SessionProbe = probeSession): Promise<ActionResult<never>> {
  const detail = err instanceof Error ? err.message : String(err);
  let session: Awaited<ReturnType<SessionProbe>>;
  try {
    session = await probe();
  } catch {
    return {
      ok: false,
      code: 'UNAVAILABLE',
      message: 'The dashboard cannot be reached, so the action may not have run. Reload the page to see the current state.',
    };
  }
  if (session.status === 401) {
    return { ok: false, code: 'UNAUTHENTICATED', message: 'Your session has ended, so nothing was changed. Sign in again, then retry.' };
  }
  if (session.user) {
    return {
      ok: false,
      code: 'INTERNAL',
      message: `The server refused or failed the request (signed in as ${session.user.username}, ${session.user.role}). Reload the page to see the current state. Detail: ${detail}`,
    };
  }
  return { ok: false, code: 'INTERNAL', message: `The request failed: ${detail}` };
}
