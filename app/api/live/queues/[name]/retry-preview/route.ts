import { loadRetryPreview } from '@/dashboard/reads';
import { liveJson } from '@/dashboard/live/live-route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * `GET /api/live/queues/<name>/retry-preview`: what "Retry all failed" would skip, and
 * why, shown in its confirmation before it runs (docs/decisions/0008-one-record-per-failure.md).
 * Read-only; for operators, who alone can retry.
 */
export async function GET(_req: Request, ctx: { params: Promise<{ name: string }> }) {
  const { name } = await ctx.params;
  return liveJson(() => loadRetryPreview(name), 'operator');
}
