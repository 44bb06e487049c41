import { liveJson } from '@/dashboard/live/live-route';
import { loadWorkers } from '@/dashboard/reads';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Every worker process and what it runs now, for signed-in users. */
export async function GET() {
  return liveJson(loadWorkers);
}
