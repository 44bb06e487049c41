import 'server-only';
import { forbidden, redirect, unauthorized } from 'next/navigation';
import { roleAtLeast, type Role } from '@/dashboard/auth/roles';
import type { User } from '@/dashboard/auth/user-store';
import { currentUser } from './session';

/**
 * For pages and layouts: the signed-in user, or a redirect to /sign-in (back to
 * `from` afterwards); a user below `minRole` gets the 403 page.
 */
export async function requireUser(minRole: Role = 'viewer', from?: string): Promise<User> {
  const user = await currentUser();
  if (!user) redirect(from ? `/sign-in?next=${encodeURIComponent(from)}` : '/sign-in');
  if (!roleAtLeast(user.role, minRole)) forbidden();
  return user;
}

/**
 * For server actions and route handlers: a real 401 when signed out, 403 when the
 * role is too low. Every action calls this itself; a page's check does not cover the
 * actions defined under it (they are public POST endpoints).
 */
export async function authorize(minRole: Role): Promise<User> {
  const user = await currentUser();
  if (!user) unauthorized();
  if (!roleAtLeast(user.role, minRole)) forbidden();
  return user;
}
