import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { Suspense } from 'react';
import { readyBullpen } from '@/dashboard/dashboard-process';
import { loadWebhookDetail } from '@/dashboard/reads';
import { requireUser } from '@/dashboard/auth/require-user';
import { decodeSegment, firstParam, type RouteProps } from '@/app/_lib/route-props';
import { CardSkeleton } from '@/components/ui/skeleton';
import type { WebhookActionSet } from '@/components/webhooks/webhook-actions';
import { WebhookView } from '@/components/webhooks/webhook-view';
import { roleAtLeast } from '@/dashboard/auth/roles';
import { truncateText } from '@/dashboard/jobs/truncate';
import { findPendingDeadLetters, MAX_WEBHOOK_REPLAYS } from '@/dashboard/webhooks/webhook-operations';
import { isAppError } from '@/lib/errors/app-error';
import { webhookIdSchema } from '@/lib/webhooks/webhook-schema';
import { enableWebhook, replayWebhookPending, sendWebhookTest } from '../actions';

export async function generateMetadata({ params }: RouteProps<{ id: string }>): Promise<Metadata> {
  return { title: `Webhook ${decodeSegment((await params).id)}` };
}

/** Pending dead letters listed on the page (the replay action finds its batch again itself). */
const PENDING_SHOWN = 10;

export default async function WebhookPage({ params, searchParams }: RouteProps<{ id: string }>) {
  const { id } = await params;
  const page = Math.max(1, Number.parseInt(firstParam(await searchParams, 'page') ?? '1', 10) || 1);
  const user = await requireUser('viewer', `/webhooks/${encodeURIComponent(id)}`);
  const actions: WebhookActionSet | undefined = roleAtLeast(user.role, 'operator')
    ? { enable: enableWebhook, test: sendWebhookTest, replay: replayWebhookPending }
    : undefined;
  return (
    <>
      <nav className="breadcrumbs" aria-label="Breadcrumbs">
        <Link href="/webhooks">Webhooks</Link> › <span className="mono">{id}</span>
      </nav>
      <h1>Webhook</h1>
      <Suspense key={`${id}:${page}`} fallback={<CardSkeleton title="Webhook" rows={8} />}>
        <Detail id={id} page={page} actions={actions} />
      </Suspense>
    </>
  );
}

async function Detail({ id, page, actions }: { id: string; page: number; actions?: WebhookActionSet }) {
  if (!webhookIdSchema.safeParse(id).success) notFound();
  const [detail, pending] = await Promise.all([
    loadWebhookDetail(id, page).catch((err: unknown) => {
      if (isAppError(err) && err.code === 'NOT_FOUND') notFound();
      throw err;
    }),
    readyBullpen().then((b) => findPendingDeadLetters(b, id, PENDING_SHOWN)),
  ]);
  return (
    <WebhookView
      initial={detail}
      pending={{
        ids: pending.entries.map((e) => ({ id: e.id, failedAt: e.failedAt, message: truncateText(e.error.message, 200).text })),
        scanned: pending.scanned,
        complete: pending.complete,
      }}
      maxReplays={MAX_WEBHOOK_REPLAYS}
      actions={actions}
    />
  );
}
