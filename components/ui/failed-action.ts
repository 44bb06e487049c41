import type { ActionResult } from '@/dashboard/client/action-result';

/** What the session probe answered: its HTTP status and, when signed in, the user; otherwise the server's words, if any. */
export type SessionProbe = () => Promise<{ status: number; user?: { username: string; role: string }; message?: string }>;

const probeSession: SessionProbe = async () => {
  const res = await fetch('/api/live/session', { cache: 'no-store', credentials: 'same-origin', signal: AbortSignal.timeout(5_000) });
  const body = (await res.json().catch(() => undefined)) as { username?: string; role?: string; message?: string } | undefined;
  return res.ok ? { status: res.status, user: body as { username: string; role: string } } : { status: res.status, message: body?.message };
};

/**
 * A production React build replaces a thrown server error's text with "Minified React
 * error #…": a code for developers that tells an operator nothing, so it is never shown.
 */
function operatorDetail(err: unknown): string | undefined {
  const text = err instanceof Error ? err.message : String(err);
  return /Minified React error|react\.dev\/errors/i.test(text) || text.trim() === '' ? undefined : text;
}

/**
 * The result to show for a server action that threw in the browser. A 401 or 403 from
 * the server, a dropped connection, Redis away and a server crash all reach the client as
 * the same opaque (in production, minified) error, so this asks the session endpoint
 * which one it was: a session that has ended gets "sign in again", an outage its time,
 * and never a React error code.
 */
export async function explainFailedAction(err: unknown, probe: SessionProbe = probeSession): Promise<ActionResult<never>> {
  const detail = operatorDetail(err);
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
  if (session.status === 503) {
    // The session check could not reach Redis: the server's sentence says since when (dashboard/live/bounded-read.ts).
    return {
      ok: false,
      code: 'UNAVAILABLE',
      message: `${session.message ?? 'Redis is unreachable'}: the action could not be carried out. Try again once the dashboard says Redis is back.`,
    };
  }
  if (session.user) {
    return {
      ok: false,
      code: 'INTERNAL',
      message: `The server refused or failed the request (signed in as ${session.user.username}, ${session.user.role}). Reload the page to see the current state.${detail ? ` Detail: ${detail}` : ''}`,
    };
  }
  return {
    ok: false,
    code: 'INTERNAL',
    message: detail ? `The request failed: ${detail}` : 'The request failed; reload the page to see the current state.',
  };
}
