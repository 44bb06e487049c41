import 'server-only';
import { AppError, isAppError } from '@/lib/errors/app-error';

/**
 * Runs a payload edit (edit-and-replay, duplicate with an edit) and moves a refusal's
 * schema issues under the editor: each becomes a `payload` field error, `path: message`.
 */
export async function withPayloadFieldErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const issues = isAppError(err) ? (err.details?.issues as Array<{ path: PropertyKey[]; message: string }> | undefined) : undefined;
    if (isAppError(err) && issues) {
      const lines = issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message));
      throw new AppError(err.code, err.message, { fieldErrors: { payload: lines } });
    }
    throw err;
  }
}
