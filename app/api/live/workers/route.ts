import { liveJson } from '@/app/_lib/live-route';
import { loadWorkers } from '@/app/_lib/reads';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Every worker process and what it runs now, for signed-in users. */
export async function GET() {
  return liveJson(loadWorkers);
}
