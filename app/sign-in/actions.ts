'use server';

import { redirect, unstable_rethrow } from 'next/navigation';
import { z } from 'zod';
import type { ActionResult } from '@/dashboard/client/action-result';
import { getBullpen, readyBullpen } from '@/dashboard/dashboard-process';
import { isAppError } from '@/lib/errors/app-error';
import { signInService } from '@/dashboard/auth/auth-services';
import { getSession, requestClient } from '@/dashboard/auth/session';
import { safeNextPath } from './safe-next-path';

const signInSchema = z.object({
  username: z.string().trim().min(1, 'Enter your user name').max(64),
  password: z.string().min(1, 'Enter your password').max(1024),
  next: z.string().max(2000).optional(),
});

/**
 * Signs in with a name and password (useActionState form). Rate-limited per name
 * and per IP in Redis; success seals the session cookie, writes an audit entry and
 * redirects to `next` (a same-site path only).
 */
export async function signIn(_prev: ActionResult<null> | null, form: FormData): Promise<ActionResult<null>> {
  // A server action is a public endpoint: its arguments are whatever a client sent.
  if (!(form instanceof FormData)) return { ok: false, code: 'VALIDATION', message: 'Enter your user name and password' };
  const parsed = signInSchema.safeParse({
    username: form.get('username') ?? '',
    password: form.get('password') ?? '',
    next: form.get('next') ?? undefined,
  });
  if (!parsed.success) {
    return {
      ok: false,
      code: 'VALIDATION',
      message: 'Enter your user name and password',
      fieldErrors: z.flattenError(parsed.error).fieldErrors as Record<string, string[]>,
    };
  }
  const bullpen = getBullpen();
  const { ip } = await requestClient();
  try {
    await readyBullpen();
    const user = await signInService().signIn(parsed.data.username, parsed.data.password, ip);
    const session = await getSession();
    session.sid = await signInService().sessions.open(user.username);
    session.username = user.username;
    session.role = user.role;
    session.sessionEpoch = user.sessionEpoch;
    session.signedInAt = Date.now();
    await session.save();
    await bullpen.audit.append({
      actor: user.username,
      action: 'auth.sign-in',
      target: { kind: 'user', id: user.username },
      details: { ip },
    });
  } catch (err) {
    unstable_rethrow(err);
    if (isAppError(err)) {
      bullpen.logger.warn({ username: parsed.data.username, ip, code: err.code }, 'sign-in refused');
      // Every refused sign-in is counted (never the password), throttled ones included, per client
      // per minute in a stream of its own: anonymous traffic never evicts the operators' audit.
      await bullpen.signInFailures
        .record({ client: ip, username: parsed.data.username, reason: err.code })
        .catch((recordErr: unknown) => bullpen.logger.error({ err: recordErr }, 'refused sign-in could not be recorded'));
      return { ok: false, code: err.code, message: err.message };
    }
    bullpen.logger.error({ err }, 'sign-in failed');
    return { ok: false, code: 'INTERNAL', message: 'Sign-in is unavailable right now (is Redis reachable?)' };
  }
  redirect(safeNextPath(parsed.data.next));
}

/**
 * Signs out (POST only: a link could be triggered by a prefetch or another site). The
 * server-side session is closed first, so a copy of the cookie stops working too.
 */
export async function signOut(): Promise<void> {
  const session = await getSession();
  const username = session.username;
  await readyBullpen()
    .then(() => signInService().sessions.close(session.sid))
    .catch((err: unknown) => getBullpen().logger.error({ err }, 'could not close the session in Redis'));
  session.destroy();
  if (username) {
    await getBullpen()
      .audit.append({ actor: username, action: 'auth.sign-out', target: { kind: 'user', id: username } })
      .catch(() => undefined);
  }
  redirect('/sign-in');
}
