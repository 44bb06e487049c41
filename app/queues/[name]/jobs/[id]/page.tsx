import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { requireUser } from '@/dashboard/auth/require-user';
import { loadJobPage, queueExists } from '@/dashboard/reads';
import { decodeSegment, firstParam, type RouteProps } from '@/app/_lib/route-props';
import { roleAtLeast } from '@/dashboard/auth/roles';
import { JobView } from '@/components/job/job-view';
import { cancelJob, duplicateJob, editJobDataAction, promoteJob, removeJob, retryJob } from './actions';

type Params = { name: string; id: string };

export async function generateMetadata({ params }: RouteProps<Params>): Promise<Metadata> {
  const p = await params;
  return { title: `Job ${decodeSegment(p.id)} · ${decodeSegment(p.name)}` };
}

const actions = {
  retry: retryJob,
  promote: promoteJob,
  duplicate: duplicateJob,
  remove: removeJob,
  editData: editJobDataAction,
  cancel: cancelJob,
};

export default async function JobPage({ params, searchParams }: RouteProps<Params>) {
  const p = await params;
  const queue = decodeSegment(p.name);
  const id = decodeSegment(p.id);
  const user = await requireUser('viewer', `/queues/${encodeURIComponent(queue)}/jobs/${encodeURIComponent(id)}`);
  if (!(await queueExists(queue))) notFound();
  const logsPage = Math.max(1, Number.parseInt(firstParam(await searchParams, 'logs') ?? '1', 10) || 1);
  // Read before rendering (no Suspense) so an unknown job is a real 404, not a streamed 200.
  const initial = await loadJobPage(queue, id, logsPage);
  if (!initial) notFound();
  return (
    <>
      <div className="breadcrumbs">
        <Link href="/queues">Queues</Link> / <Link href={`/queues/${encodeURIComponent(queue)}`}>{queue}</Link> /
      </div>
      <div className="page-head">
        <h1>
          Job <span className="mono">{id}</span>
        </h1>
      </div>
      <JobView
        initial={initial}
        logsPage={logsPage}
        canOperate={roleAtLeast(user.role, 'operator')}
        canAdmin={roleAtLeast(user.role, 'admin')}
        actions={actions}
      />
    </>
  );
}
