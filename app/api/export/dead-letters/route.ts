import type { NextRequest } from 'next/server';
import { exportResponse } from '@/dashboard/exports/export-route';
import { parseDeadLetterFilters, toStoreFilter, withoutPaging } from '@/dashboard/client/dead-letters-filters';
import { DEAD_LETTER_EXPORT_COLUMNS, exportDeadLetterPages } from '@/dashboard/exports/export-dead-letters';
import { parseExportFormat } from '@/dashboard/client/export-format';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * GET /api/export/dead-letters?type=&tenant=&class=&status=&since=&from=&to=&format=csv|ndjson —
 * the entries the dead-letters page shows with these filters (paging ignored), streamed;
 * operators only; audited as `dlq.export` with the filters as resolved (a `since` window as from).
 */
export async function GET(req: NextRequest) {
  const sp = req.nextUrl.searchParams;
  const { filters } = parseDeadLetterFilters(sp);
  const now = Date.now();
  return exportResponse({
    format: parseExportFormat(sp.get('format')),
    action: 'dlq.export',
    target: { kind: 'dead-letters', id: 'list' },
    filters: { ...withoutPaging(filters), ...toStoreFilter(withoutPaging(filters), now) },
    fileParts: ['bullpen', 'dead-letters', ...(filters.status ? [filters.status] : [])],
    columns: DEAD_LETTER_EXPORT_COLUMNS,
    open: (bullpen) => exportDeadLetterPages(bullpen, filters, now),
  });
}
