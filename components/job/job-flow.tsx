import Link from 'next/link';
import { StatusPill } from '@/components/ui/badge';
import { FLOW_CHILDREN_SHOWN } from '@/dashboard/client/job-flow-limits';
import type { FlowNode, JobFlow } from '@/dashboard/client/read-models';
import { jobPageHref } from '@/dashboard/client/schedules-view';
import { plural } from '@/dashboard/client/runtime-shared';

const DEPENDENCY_WORDS = { pending: 'not done yet', processed: 'done', failed: 'failed', ignored: 'failed, ignored' } as const;

function NodeLink({ node, testId }: { node: FlowNode; testId: string }) {
  return node.known ? (
    <Link href={jobPageHref(node.queue, node.id)} className="mono" data-testid={testId}>
      {node.queue} / {node.id}
    </Link>
  ) : (
    <span className="mono" data-testid={testId} title="A queue this dashboard does not know">
      {node.queue} / {node.id}
    </span>
  );
}

/**
 * The job's BullMQ flow as a tree: its parent above it, its children below, each
 * with its state now and a link to it, so an operator follows a stuck parent to the
 * child it waits for.
 */
export function JobFlowTree({ queue, id, flow }: { queue: string; id: string; flow: JobFlow }) {
  const total = flow.counts.pending + flow.counts.processed + flow.counts.failed + flow.counts.ignored;
  const me = (
    <span className="row" style={{ display: 'inline-flex' }}>
      <strong className="mono">
        {queue} / {id}
      </strong>
      <span className="small muted">(this job)</span>
    </span>
  );
  const children =
    flow.children.length > 0 ? (
      <ul className="flow-tree" aria-label="Children">
        {flow.children.map((c) => (
          <li key={`${c.queue}/${c.id}`} data-testid="job-flow-child" data-state={c.state} data-dependency={c.dependency}>
            <NodeLink node={c} testId="job-flow-child-link" /> <StatusPill status={c.state} />{' '}
            <span className="small muted">{DEPENDENCY_WORDS[c.dependency]}</span>
          </li>
        ))}
      </ul>
    ) : null;
  return (
    <section className="card" aria-labelledby="flow-h" data-testid="job-flow">
      <h2 id="flow-h">Flow</h2>
      {total > 0 && (
        <p className="small muted" data-testid="job-flow-counts">
          {plural(total, 'child', 'children')}: {flow.counts.processed} done, {flow.counts.pending} not done yet
          {flow.counts.failed > 0 ? `, ${flow.counts.failed} failed` : ''}
          {flow.counts.ignored > 0 ? `, ${flow.counts.ignored} failed and ignored` : ''}
          {total > flow.children.length ? ` (at most ${FLOW_CHILDREN_SHOWN} of each listed)` : ''}.
        </p>
      )}
      <ul className="flow-tree" aria-label="Flow">
        {flow.parent ? (
          <li data-testid="job-flow-parent" data-state={flow.parent.state}>
            <span className="small muted">Parent </span>
            <NodeLink node={flow.parent} testId="job-flow-parent-link" /> <StatusPill status={flow.parent.state} />
            <ul className="flow-tree">
              <li>
                {me}
                {children}
              </li>
            </ul>
          </li>
        ) : (
          <li>
            {me}
            {children}
          </li>
        )}
      </ul>
    </section>
  );
}
