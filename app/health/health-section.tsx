import 'server-only';
import { HealthBoard } from '@/components/health/health-board';
import { loadHealth } from '@/dashboard/reads';
import { liveUrls } from '@/dashboard/client/query-keys';

/** Reads the health report (the checker shares one evaluation between callers) and hands it to the live board. */
export async function HealthSection() {
  const report = await loadHealth();
  return <HealthBoard initial={report} liveUrl={liveUrls.health()} />;
}
