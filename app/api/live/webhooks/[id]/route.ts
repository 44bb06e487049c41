import type { NextRequest } from 'next/server';
import { liveJson } from '@/dashboard/live/live-route';
import { loadWebhookDetail } from '@/dashboard/reads';
import { webhookIdSchema } from '@/lib/webhooks/webhook-schema';
import { AppError } from '@/lib/errors/app-error';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** GET /api/live/webhooks/:id?page=<n> — the webhook page's data (404 JSON for an unknown webhook). */
export async function GET(req: NextRequest, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  const page = Number.parseInt(req.nextUrl.searchParams.get('page') ?? '1', 10) || 1;
  return liveJson(async () => {
    if (!webhookIdSchema.safeParse(id).success) throw new AppError('NOT_FOUND', `No webhook ${id}`);
    return loadWebhookDetail(id, page);
  });
}
