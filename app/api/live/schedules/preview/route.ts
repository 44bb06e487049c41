import type { NextRequest } from 'next/server';
import { liveJson } from '@/dashboard/live/live-route';
import { getBullpen } from '@/dashboard/dashboard-process';
import { previewQuerySchema } from '@/dashboard/schedules/schedules-form';
import { AppError } from '@/lib/errors/app-error';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * `GET /api/live/schedules/preview?pattern=…&tz=…`: the edit form's live check as the operator
 * types. Pure (nothing is read or written), but behind the session like every
 * dashboard endpoint, and for operators only since only they can save an edit.
 * Answers 200 with `{ok: false, field, reason}` for a pattern that does not parse:
 * that is the answer the form shows, not a failed request.
 */
export async function GET(req: NextRequest) {
  return liveJson(async () => {
    const parsed = previewQuerySchema.safeParse({
      pattern: req.nextUrl.searchParams.get('pattern') ?? '',
      tz: req.nextUrl.searchParams.get('tz') || undefined,
    });
    if (!parsed.success) throw new AppError('VALIDATION', 'pattern and tz must be short strings');
    return getBullpen().schedules.preview(parsed.data.pattern, parsed.data.tz, Date.now(), 5);
  }, 'operator');
}
