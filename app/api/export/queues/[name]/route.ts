import type { NextRequest } from 'next/server';
import { exportResponse } from '@/dashboard/exports/export-route';
import { parseExportFormat } from '@/dashboard/client/export-format';
import { exportJobPages, JOB_EXPORT_COLUMNS } from '@/dashboard/exports/export-jobs';
import { parseQueueFilters } from '@/dashboard/client/queue-filters';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * GET /api/export/queues/:name?state=&name=&tenant=&format=csv|ndjson — the jobs the queue
 * page shows with these filters (paging ignored), streamed; operators only; audited as `jobs.export`.
 */
export async function GET(req: NextRequest, ctx: { params: Promise<{ name: string }> }) {
  const { name: queue } = await ctx.params;
  const sp = req.nextUrl.searchParams;
  const filters = parseQueueFilters(sp);
  const { page: _page, pageSize: _size, ...shown } = filters;
  return exportResponse({
    format: parseExportFormat(sp.get('format')),
    action: 'jobs.export',
    target: { kind: 'queue', id: queue },
    filters: shown,
    fileParts: ['bullpen', queue, filters.state],
    columns: JOB_EXPORT_COLUMNS,
    open: (bullpen) => exportJobPages(bullpen, queue, filters),
  });
}
