import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentUser } from '@/dashboard/auth/session';
import { SignInForm } from '@/components/auth/sign-in-form';
import { signIn } from './actions';
import { safeNextPath } from './safe-next-path';
import { firstParam, type RouteProps } from '@/app/_lib/route-props';

export const metadata: Metadata = { title: 'Sign in' };

export default async function SignInPage({ searchParams }: RouteProps) {
  const sp = await searchParams;
  const next = safeNextPath(firstParam(sp, 'next'));
  if (await currentUser()) redirect(next);
  return (
    <div className="card auth-card">
      <h1>Sign in to Bullpen</h1>
      <SignInForm action={signIn} next={next} />
      <p className="muted small">
        First start? The admin password was printed once and saved in <code>.data/admin-password</code>.
      </p>
    </div>
  );
}
