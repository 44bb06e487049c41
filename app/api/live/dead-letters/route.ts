import type { NextRequest } from 'next/server';
import { liveJson } from '@/dashboard/live/live-route';
import { parseDeadLetterFilters } from '@/dashboard/client/dead-letters-filters';
import { loadDeadLetterList } from '@/dashboard/reads';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** One page of the list, filtered exactly as the page's URL says, for the page's poll. */
export async function GET(req: NextRequest) {
  const { filters } = parseDeadLetterFilters(req.nextUrl.searchParams);
  return liveJson(() => loadDeadLetterList(filters));
}
