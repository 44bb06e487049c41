import type { AppStores } from '@/jobs/app-stores';
import { SessionArchiveStore } from '@/jobs/session/sessions/session-archive-store';
import { SessionStore } from '@/jobs/session/sessions/session-store';
import type { Bullpen } from '@/lib/bullpen';

/**
 * The session store a SessionArchiveStore deletes archived sessions through, with the
 * process SIGKILLed on the `killAt`-th deletion, before it runs: the archive has
 * written (and fsynced) that batch and recorded it in flight, and nothing has
 * deleted it yet. The one point recovery is for, reached every time.
 */
class SessionStoreKilledBeforeDelete extends SessionStore {
  private deletions = 0;

  constructor(
    bullpen: Bullpen,
    private readonly killAt: number,
  ) {
    super(bullpen.redis, bullpen.keys);
  }

  override async removeArchived(ids: readonly string[]): Promise<number> {
    if (++this.deletions === this.killAt) {
      console.log(`killed after writing batch ${this.killAt}, before deleting it`);
      process.kill(process.pid, 'SIGKILL');
      await new Promise(() => {});
    }
    return super.removeArchived(ids);
  }
}

/** The application's stores with the session archive dying after its `killAt`-th batch write (see above). */
export function storesKilledAfterArchiveWrite(bullpen: Bullpen, stores: AppStores, killAt: number): AppStores {
  const sessions = new SessionStoreKilledBeforeDelete(bullpen, killAt);
  return {
    ...stores,
    sessionArchive: new SessionArchiveStore(bullpen.redis, bullpen.keys, sessions, SessionArchiveStore.rootFor(bullpen.config.dataDir)),
  };
}
