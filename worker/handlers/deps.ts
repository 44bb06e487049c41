import type { Bullpen } from '@/lib/bullpen';

/** What every handler factory receives: the composition root and nothing global. */
export interface HandlerDeps {
  bullpen: Bullpen;
}
