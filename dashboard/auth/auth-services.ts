import 'server-only';
import { forgetProcessScoped, processScoped } from '@/dashboard/dashboard-process';
import { resolveSessionSecret } from '@/dashboard/auth/session-secret';
import { SignInService } from '@/dashboard/auth/sign-in';

/** The sign-in service (users + rate limiter) on the app's Bullpen. */
export function signInService(): SignInService {
  return processScoped('sign-in', (b) => new SignInService(b.redis, b.keys));
}

/** The session-sealing secret, resolved once per process (again after a failure). */
export function sessionSecret(): Promise<string> {
  return processScoped('session-secret', (b) =>
    resolveSessionSecret(b.config).catch((err: unknown) => {
      forgetProcessScoped('session-secret');
      throw err;
    }),
  );
}
