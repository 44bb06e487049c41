/**
 * `npm run demo` (or `npm start -- --demo`): seeds a few tenants' data and sends a
 * realistic mix of jobs, so a newcomer's first dashboard is alive: consolidations with
 * progress bars, embeddings, training, exports, retries in the delayed set, and a few
 * jobs that fail for good and land in the dead-letter queue (a webhook to a refused
 * address, a Slack sync without a token). `--follow` keeps a trickle of jobs going
 * until stopped, so the throughput charts move.
 */
import { randomUUID } from 'node:crypto';
import type { ShippedJobs } from '@/jobs';
import { shippedApp } from '@/jobs/shipped-app';
import { createAppBullpen } from '@/lib/app/create-app-bullpen';
import type { Bullpen } from '@/lib/bullpen';
import { loadConfigOrExit } from '@/lib/config';
import type { BulkItemOf } from '@/lib/jobs/dispatcher';
import type { Tenant } from '@/lib/jobs/tenant';
import { MemoryStore } from '@/jobs/memory/memories/memory-store';
import { QuotaStore } from '@/jobs/maintenance/quotas/quota-store';
import { SessionStore } from '@/jobs/session/sessions/session-store';
import { TrajectoryStore } from '@/jobs/learning/trajectories/trajectory-store';
import { readyClient } from '@/lib/redis/connection';

const TENANTS: Tenant[] = [{ orgId: 'acme', workspaceId: 'support' }, { orgId: 'acme', workspaceId: 'sales' }, { orgId: 'globex' }];

const TOPICS = [
  [
    'The customer prefers dark mode in the dashboard',
    'Customer asked again for a dark mode theme',
    'Dark mode is the customer’s preferred theme',
  ],
  ['Invoices are sent on the first business day of the month', 'Monthly invoices go out on the first business day'],
  ['The API rate limit is 100 requests per minute per key', 'Each API key may send 100 requests a minute'],
  ['Support hours are 8:00 to 18:00 CET on weekdays', 'The support desk is open weekdays from 8 to 18 CET'],
  ['The mobile app crashes when uploading photos larger than 20 MB'],
  ['Escalations go to the on-call engineer through the pager'],
];

const DAY = 24 * 3_600_000;
const rnd = (n: number) => Math.floor(Math.random() * n);

async function seed(bullpen: Bullpen): Promise<void> {
  const memories = new MemoryStore(bullpen.redis, bullpen.keys);
  const sessions = new SessionStore(bullpen.redis, bullpen.keys);
  const trajectories = new TrajectoryStore(bullpen.redis, bullpen.keys);
  const quotas = new QuotaStore(bullpen.redis, bullpen.keys);
  const now = Date.now();
  for (const tenant of TENANTS) {
    for (const topic of TOPICS) {
      for (const content of topic) {
        await memories.create({ kind: 'episodic', content, importance: 0.3 + Math.random() * 0.6, tenant, userId: `u${rnd(5)}` });
      }
    }
    for (let i = 0; i < 40; i++) {
      const lastActiveAt = now - rnd(10) * DAY;
      await sessions.save({
        id: `s-${randomUUID()}`,
        tenant,
        userId: `u${rnd(5)}`,
        data: { page: '/inbox' },
        createdAt: lastActiveAt - DAY,
        lastActiveAt,
      });
    }
    for (let i = 0; i < 20; i++) {
      const steps = Array.from({ length: 8 }, () => {
        const state = [Math.random(), Math.random(), Math.random(), Math.random()];
        const action = state[0] > 0.5 ? 1 : 0;
        return { state, action, reward: action === 1 ? 1 : Math.random() * 0.2 };
      });
      await trajectories.add({ id: `t-${randomUUID()}`, tenant, steps, createdAt: now });
    }
  }
  // A quota that acme's support workspace already exceeds, so quota-check has something to report.
  await quotas.set({ orgId: 'acme', workspaceId: 'support' }, { memories: 5, sessions: 1_000 });
  await quotas.set({ orgId: 'globex' }, { memories: 10_000, jobsPerDay: 50_000 });
}

async function webhooks(bullpen: Bullpen): Promise<{ refused: string; unreachable: string }> {
  // 127.0.0.1 is refused by the SSRF guard unless WEBHOOK_ALLOW_HOSTS names it: a permanent failure.
  const refused = await bullpen.webhooks.create({
    id: `demo-loopback-${rnd(1e6)}`,
    url: 'http://127.0.0.1:9/hook',
    orgId: TENANTS[2].orgId,
    description: 'demo: refused target',
  });
  // A name that never resolves: network errors, retried with full-jitter backoff.
  const unreachable = await bullpen.webhooks.create({
    id: `demo-unreachable-${rnd(1e6)}`,
    url: 'https://hooks.bullpen-demo.invalid/events',
    orgId: TENANTS[1].orgId,
    description: 'demo: unreachable',
  });
  return { refused: refused.id, unreachable: unreachable.id };
}

function mix(hooks: { refused: string; unreachable: string }): BulkItemOf<ShippedJobs>[] {
  const items: BulkItemOf<ShippedJobs>[] = [];
  for (const tenant of TENANTS) {
    const opts = { tenant };
    items.push({ type: 'memory-consolidation', data: { workspaceId: tenant.workspaceId }, opts });
    items.push({
      type: 'embedding-batch',
      data: {
        namespace: `docs-${tenant.orgId}`,
        items: Array.from({ length: 96 }, (_, i) => ({ id: `doc-${i}`, text: `${TOPICS[i % TOPICS.length][0]} (revision ${i})` })),
      },
      opts,
    });
    items.push({ type: 'trajectory-process', data: {}, opts });
  }
  items.push({ type: 'memory-importance-decay', data: { decayFactor: 0.97 } });
  items.push({ type: 'pattern-training', data: { epochs: 20 }, opts: { delayMs: 5_000 } });
  items.push({ type: 'session-cleanup', data: { maxAgeMs: 7 * DAY } });
  items.push({ type: 'quota-check', data: {} });
  items.push({ type: 'data-export', data: { orgId: 'globex' } });
  items.push({ type: 'audit-export', data: { orgId: 'acme' } });
  items.push({ type: 'index-optimization', data: {} });
  items.push({ type: 'slack-sync', data: { channelId: 'C0DEMO01' }, opts: { tenant: TENANTS[0] } });
  items.push({
    type: 'webhook-dispatch',
    data: { webhookId: hooks.refused, event: 'order.created', payload: { orderId: 1042 } },
    opts: { tenant: TENANTS[2] },
  });
  items.push({
    type: 'webhook-dispatch',
    data: { webhookId: hooks.unreachable, event: 'invoice.paid', payload: { invoiceId: 77 } },
    opts: { tenant: TENANTS[1], attempts: 4 },
  });
  return items;
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  if (config.BULLPEN_APP !== shippedApp.name) {
    console.error(`demo: it seeds the shipped application's data and jobs; BULLPEN_APP is ${config.BULLPEN_APP}`);
    process.exit(1);
  }
  const follow = process.argv.includes('--follow');
  const bullpen = createAppBullpen(shippedApp, { config });
  await readyClient(bullpen.redis);
  await seed(bullpen);
  const hooks = await webhooks(bullpen);
  const sent = await bullpen.dispatcher.dispatchBulk(mix(hooks));
  console.log(`demo: seeded ${TENANTS.length} tenants and sent ${sent.length} jobs (some will retry, a few will dead-letter)`);
  if (!follow) {
    await bullpen.close();
    return;
  }
  let stopping = false;
  const stop = () => (stopping = true);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  while (!stopping) {
    await new Promise((r) => setTimeout(r, 2_000 + rnd(3_000)));
    if (stopping) break;
    const tenant = TENANTS[rnd(TENANTS.length)];
    await bullpen.dispatcher
      .dispatchBulk([
        {
          type: 'embedding-batch',
          data: { namespace: `docs-${tenant.orgId}`, items: [{ id: `note-${rnd(1e6)}`, text: TOPICS[rnd(TOPICS.length)][0] }] },
          opts: { tenant },
        },
        { type: 'quota-check', data: { orgId: tenant.orgId } },
        ...(Math.random() < 0.03
          ? [{ type: 'webhook-dispatch' as const, data: { webhookId: hooks.refused, event: 'ping', payload: {} }, opts: { tenant } }]
          : []),
      ])
      .catch((err) => console.error(`demo: ${err instanceof Error ? err.message : err}`));
  }
  await bullpen.close();
}

main().catch((err) => {
  console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
