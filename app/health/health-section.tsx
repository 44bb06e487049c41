import 'server-only';
import { HealthBoard } from '@/components/health/health-board';
import { getBullpen } from '@/app/_lib/bullpen';
import { HEALTH_LIVE_URL } from './live-url';

/** Reads the health report (the checker shares one evaluation between callers) and hands it to the live board. */
export async function HealthSection() {
  const report = await getBullpen().health.check();
  return <HealthBoard initial={report} liveUrl={HEALTH_LIVE_URL} />;
}
