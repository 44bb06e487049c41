import type { NextRequest } from 'next/server';
import { getBullpen } from '@/dashboard/dashboard-process';
import { liveJson } from '@/dashboard/live/live-route';
import { answerPayloadCheck, payloadCheckRequestSchema } from '@/dashboard/client/dead-letters-payload';
import { AppError } from '@/lib/errors/app-error';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * `POST /api/live/payload-check` with `{type, text, original?}`: the payload editors' live check
 * as the operator types. The schemas live in the job table on the server, so the check
 * runs here; nothing is read from Redis or written. For operators, who alone can
 * replay or save. Answers 200 with `{ok: false, stage, ...}` for a payload the schema
 * refuses: that is the answer the editor shows, not a failed request.
 */
export async function POST(req: NextRequest) {
  return liveJson(async () => {
    if (req.headers.get('sec-fetch-site') === 'cross-site') throw new AppError('FORBIDDEN', 'Cross-site requests are refused');
    const body = await req.json().catch(() => undefined);
    const parsed = payloadCheckRequestSchema.safeParse(body);
    if (!parsed.success) throw new AppError('VALIDATION', 'Send {type, text, original?} as short strings');
    return answerPayloadCheck(getBullpen().jobs, parsed.data);
  }, 'operator');
}
