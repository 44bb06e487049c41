import 'server-only';
import { z } from 'zod';
import { AppError } from '@/lib/errors/app-error';
import type { JobCatalog } from '@/lib/jobs/job-catalog';

/**
 * An operator's edit of a job's payload, checked as edit-and-replay checks it
 * (docs/dead-letters.md): the type's schema, then no change to a locked field (the
 * tenant's ids and the fields that name another resource, lib/jobs/locked-fields.ts).
 * Returns the payload as the schema parsed it; a refusal is an AppError VALIDATION
 * whose `details.issues` name the fields.
 */
export function validatePayloadEdit(jobs: JobCatalog, type: string, original: unknown, edited: unknown): unknown {
  const parsed = jobs.get(type).schema.safeParse(edited);
  if (!parsed.success) {
    throw new AppError('VALIDATION', `Invalid ${type} payload: ${z.prettifyError(parsed.error)}`, { issues: parsed.error.issues });
  }
  const locked = jobs.lockedFieldEdits(type, original, parsed.data);
  if (locked.length > 0) {
    throw new AppError('VALIDATION', `Refused: the edit changes locked field${locked.length > 1 ? 's' : ''} ${locked.join(', ')}`, {
      issues: locked.map((f) => ({
        path: [f],
        message: `locked: an edit may not change it (dispatch a new job to target another ${f})`,
      })),
      lockedFields: locked,
    });
  }
  return parsed.data;
}
