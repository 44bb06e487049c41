import type { HandlerMap } from '@/lib/runtime/handler';
import type { HandlerDeps } from './deps';

/**
 * Every handler this build ships, by job type. `lib/jobs/handled-types.ts` lists the
 * same types for the dispatcher; a unit test keeps the two equal.
 */
export function createHandlers(deps: HandlerDeps): HandlerMap {
  void deps;
  return {};
}
