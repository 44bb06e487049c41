import { getBullpen } from '@/dashboard/dashboard-process';
import { bearerChallenge, checkBearer } from '@/dashboard/health/health-metrics-auth';
import { dashboardMetrics } from './dashboard-metrics';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * Prometheus exposition of the queues: `<prefix>worker_queue_depth{type,state}` for
 * every job type and `<prefix>worker_dlq_size`. Without sign-in (a scraper has no
 * session); with `METRICS_TOKEN` set, `Authorization: Bearer <token>` is required.
 */
export async function GET(req: Request) {
  const bullpen = getBullpen();
  const auth = checkBearer(req.headers.get('authorization'), bullpen.config.METRICS_TOKEN);
  if (auth !== 'ok') {
    return new Response('unauthorized\n', {
      status: 401,
      headers: { 'WWW-Authenticate': bearerChallenge(auth), 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
    });
  }
  try {
    const { contentType, body } = await dashboardMetrics().render();
    return new Response(body, { status: 200, headers: { 'Content-Type': contentType, 'Cache-Control': 'no-store' } });
  } catch (err) {
    bullpen.logger.error({ err }, 'metrics endpoint failed');
    return new Response('metrics unavailable\n', {
      status: 503,
      headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
    });
  }
}
