import { NextResponse } from 'next/server';
import { getBullpen } from '@/dashboard/dashboard-process';
import { healthHttpStatus } from '@/dashboard/client/health-view';
import type { PublicHealth } from '@/lib/health/health-status';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const HEADERS = { 'Cache-Control': 'no-store' };

/**
 * For load balancers and uptime probes: no sign-in, statuses only (no job data, no
 * error text, no latencies). 200 when healthy or degraded, 503 when unhealthy, so a
 * probe can act on the status code alone.
 */
export async function GET() {
  const summary = await readSummary();
  return NextResponse.json(summary, { status: healthHttpStatus(summary.status), headers: HEADERS });
}

/** The same status code without a body, for probes that send HEAD. */
export async function HEAD() {
  const summary = await readSummary();
  return new Response(null, { status: healthHttpStatus(summary.status), headers: HEADERS });
}

async function readSummary(): Promise<PublicHealth> {
  try {
    return await getBullpen().health.publicSummary();
  } catch (err) {
    // The checker turns failing checks into statuses; reaching here means the dashboard
    // itself could not evaluate (e.g. bad configuration). That is unhealthy too.
    try {
      getBullpen().logger.error({ err }, 'public health summary failed');
    } catch {
      // The logger lives on the Bullpen that could not be built: nothing more to do.
    }
    return { status: 'unhealthy', checks: {}, checkedAt: new Date().toISOString() };
  }
}
