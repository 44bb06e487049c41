import { AppError } from '@/lib/errors/app-error';
import { loadBulkOperation } from '@/dashboard/reads';
import { liveJson } from '@/dashboard/live/live-route';

export const dynamic = 'force-dynamic';

/** GET /api/live/bulk/:id — progress of a background bulk operation (retry all, clean, replay all, …). */
export async function GET(_req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  return liveJson(async () => {
    const op = await loadBulkOperation(id);
    if (!op) throw new AppError('NOT_FOUND', `No bulk operation ${id} (records are kept for a day)`);
    return op;
  });
}
