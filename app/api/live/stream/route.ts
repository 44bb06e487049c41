import type { NextRequest } from 'next/server';
import { liveStream } from '@/dashboard/live/live-stream-route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/live/stream?s=/api/live/overview&s=… — the tab's live views, pushed (dashboard/live/live-stream-route.ts). */
export async function GET(req: NextRequest) {
  return liveStream(req.nextUrl.searchParams.getAll('s'), req.signal);
}
