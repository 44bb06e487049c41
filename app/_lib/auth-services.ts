import 'server-only';
import { getBullpen } from '@/app/_lib/bullpen';
import { resolveSessionSecret } from '@/lib/auth/session-secret';
import { SignInService } from '@/lib/auth/sign-in';

const holder = globalThis as typeof globalThis & { __bullpenSignIn?: SignInService; __bullpenSecret?: Promise<string> };

/** The sign-in service (users + rate limiter) on the app's Bullpen. */
export function signInService(): SignInService {
  if (!holder.__bullpenSignIn) {
    const b = getBullpen();
    holder.__bullpenSignIn = new SignInService(b.redis, b.keys);
  }
  return holder.__bullpenSignIn;
}

/** The session-sealing secret, resolved once per process. */
export function sessionSecret(): Promise<string> {
  holder.__bullpenSecret ??= resolveSessionSecret(getBullpen().config).catch((err) => {
    holder.__bullpenSecret = undefined;
    throw err;
  });
  return holder.__bullpenSecret;
}
