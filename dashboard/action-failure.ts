import 'server-only';
import { isAppError } from '@/lib/errors/app-error';
import { errorReference } from '@/lib/errors/error-reference';
import type { Logger } from '@/lib/logging/logger';
import type { ActionResult } from './client/action-result';

/**
 * A failed action's result: an AppError keeps its code, message and field errors (they
 * were written for the user); anything else is logged with a reference and the user
 * sees only the reference, never the error's own text.
 */
export function actionFailure(err: unknown, action: string, logger: Logger, logFields: Record<string, unknown> = {}): ActionResult<never> {
  if (isAppError(err)) {
    const fieldErrors = err.details?.fieldErrors as Record<string, string[]> | undefined;
    return { ok: false, code: err.code, message: err.message, ...(fieldErrors ? { fieldErrors } : {}) };
  }
  const ref = errorReference();
  logger.error({ err, ref, action, ...logFields }, 'dashboard action failed');
  return {
    ok: false,
    code: 'INTERNAL',
    message: `${action} failed unexpectedly; the dashboard log has the details under reference ${ref}`,
    ref,
  };
}
