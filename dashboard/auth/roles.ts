import 'server-only';
import { z } from 'zod';

/** Roles in increasing power; each includes everything the ones before it may do. */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export const roleSchema = z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

/**
 * What each role adds, as the dashboard shows it:
 * - viewer: read every page.
 * - operator: retry, replay, pause/resume, promote, trigger, edit schedules, duplicate.
 * - admin: purge, remove, clean, discard in bulk, manage users.
 */
export const ROLE_GRANTS: Record<Role, string> = {
  viewer: 'read every page',
  operator: 'retry, replay, pause/resume, promote, trigger, duplicate, edit schedules',
  admin: 'purge, remove, clean, manage users',
};

/** Whether `role` may do what `min` may. */
export function roleAtLeast(role: Role, min: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(min);
}
