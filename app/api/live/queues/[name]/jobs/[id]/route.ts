import type { NextRequest } from 'next/server';
import { AppError } from '@/lib/errors/app-error';
import { liveJson } from '@/dashboard/live/live-route';
import { loadJobPage } from '@/dashboard/reads';

export const dynamic = 'force-dynamic';

/** GET /api/live/queues/:name/jobs/:id?logs=<page> — the job page's data (404 JSON when the job is gone). */
export async function GET(req: NextRequest, ctx: { params: Promise<{ name: string; id: string }> }) {
  const { name, id } = await ctx.params;
  const logsPage = Number.parseInt(req.nextUrl.searchParams.get('logs') ?? '1', 10) || 1;
  return liveJson(async () => {
    const page = await loadJobPage(name, id, logsPage);
    if (!page) throw new AppError('NOT_FOUND', `No job ${id} in ${name}`);
    return page;
  });
}
