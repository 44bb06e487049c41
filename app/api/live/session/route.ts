import { liveJson } from '@/dashboard/live/live-route';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * Who the browser's session belongs to: 401 when it has ended. A refused server action
 * reaches the client as an opaque error, so `useAction` asks here why (failed-action.ts).
 */
export async function GET() {
  return liveJson(async (user) => ({ username: user.username, role: user.role }));
}
