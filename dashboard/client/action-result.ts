import type { ErrorCode } from '@/lib/errors/app-error';

/**
 * What every dashboard server action returns. Auth failures are not in here: they are
 * real 401/403 responses (unauthorized()/forbidden()), never a 200 with an error body.
 */
export type ActionResult<T> =
  | { ok: true; data: T }
  | {
      ok: false;
      code: ErrorCode | 'INTERNAL';
      message: string;
      /** Per-field messages from zod, keyed by the input's field name. */
      fieldErrors?: Record<string, string[]>;
      /** For INTERNAL: the reference of the server's log line that holds the error. */
      ref?: string;
    };

export function actionOk<T>(data: T): ActionResult<T> {
  return { ok: true, data };
}
