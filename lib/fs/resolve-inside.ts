import path from 'node:path';
import { PermanentError } from '../errors/permanent-error';

/**
 * The absolute path of the folder names `segments` under `root`. Each segment must be
 * one plain name: not empty, not `.` or `..`, no `/`, `\` or NUL. The result is checked
 * again to lie strictly inside `root` (never the root itself: deleting "a tenant's
 * folder" must not become deleting every tenant's). Every path built from job data goes
 * through here before a write or a delete (docs/security.md).
 *
 * A refusal is permanent: retrying the same input cannot make it safe.
 */
export function resolveInside(root: string, ...segments: string[]): string {
  const base = path.resolve(root);
  for (const segment of segments) {
    if (!isPlainSegment(segment)) {
      throw new PermanentError(
        `Refused path segment ${JSON.stringify(segment)} under ${base}: not one plain folder or file name`,
        'VALIDATION',
      );
    }
  }
  const target = path.resolve(base, ...segments);
  const rel = path.relative(base, target);
  if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
    throw new PermanentError(`Refused path ${JSON.stringify(segments.join('/'))}: it does not stay inside ${base}`, 'VALIDATION');
  }
  return target;
}

function isPlainSegment(segment: unknown): segment is string {
  return typeof segment === 'string' && segment !== '' && segment !== '.' && segment !== '..' && !/[/\\\0]/.test(segment);
}
