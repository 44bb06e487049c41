'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { BulkOperation } from '@/dashboard/client/read-models';
import type { QueuePage } from '@/dashboard/client/read-models';
import { queueHref, serializeQueueFilters, type QueueFilters } from '@/dashboard/client/queue-filters';
import { exportUrls, queryKeys } from '@/dashboard/client/query-keys';
import { ExportLinks } from '@/components/export/export-links';
import { LiveStatus } from '@/components/live/live-status';
import { Badge, StatusPill } from '@/components/ui/badge';
import { Pagination } from '@/components/ui/pagination';
import { BulkProgress } from './bulk-progress';
import { JobFilters } from './job-filters';
import { JobTable } from './job-table';
import { PayloadSearch } from './payload-search';
import { QueueToolbar } from './queue-toolbar';
import { StateTabs } from './state-tabs';
import { ThroughputCard } from './throughput-card';
import type { QueueActions } from './types';
import { useQueuePage } from './use-queue-page';
import { plural } from '@/dashboard/client/runtime-shared';

export interface QueueViewProps {
  initial: QueuePage;
  filters: QueueFilters;
  canOperate: boolean;
  canAdmin: boolean;
  actions: QueueActions;
}

/** The live queue page: header, actions, state tabs, filters, one page of jobs and the pager. */
export function QueueView({ initial, filters, canOperate, canAdmin, actions }: QueueViewProps) {
  const name = initial.queue.name;
  const search = serializeQueueFilters(filters);
  const { data, error, dataUpdatedAt, isFetching } = useQueuePage(name, search, initial);
  const qc = useQueryClient();
  const [bulk, setBulk] = useState<{ op: BulkOperation; title: string } | null>(null);
  const refresh = () => void qc.invalidateQueries({ queryKey: queryKeys.queueAll(name) });
  return (
    <div className="stack">
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <p className="muted" style={{ margin: 0 }}>
          {data.queue.foreign && (
            <Badge
              tone="violet"
              testId="queue-foreign"
              title={`BullMQ queue "${data.queue.queueName}" under the prefix "${data.queue.prefix}"`}
            >
              foreign
            </Badge>
          )}{' '}
          {data.queue.description} {data.queue.paused && <StatusPill status="paused" testId="queue-paused" />}
        </p>
        <LiveStatus updatedAt={dataUpdatedAt} error={error} fetching={isFetching} />
      </div>
      <QueueToolbar
        data={data}
        actions={actions}
        canOperate={canOperate}
        canAdmin={canAdmin}
        onChanged={refresh}
        onBulkStarted={(op, title) => setBulk({ op, title })}
      />
      {bulk && (
        <BulkProgress
          key={bulk.op.id}
          operation={bulk.op}
          title={bulk.title}
          invalidate={queryKeys.queueAll(name)}
          onClose={() => setBulk(null)}
        />
      )}
      <StateTabs queue={name} filters={filters} counts={data.queue.counts} />
      <JobFilters queue={name} filters={filters} />
      {data.scan && (
        <p className="small muted" role="status" data-testid="scan-note">
          {data.scan.capped
            ? `Filtered by searching the newest ${plural(data.scan.scanned, `${data.state} job`)}; older ones were not searched.`
            : `Searched ${plural(data.scan.scanned, `${data.state} job`)}.`}
        </p>
      )}
      <PayloadSearch
        key={`${data.state}?${filters.name ?? ''}&${filters.tenant ?? ''}`}
        queue={name}
        state={data.state}
        name={filters.name}
        tenant={filters.tenant}
      />
      {canOperate && (
        <ExportLinks
          testId="export-jobs"
          what={`these ${data.state} jobs`}
          hrefFor={(format) =>
            exportUrls.queue(name, serializeQueueFilters({ state: data.state, name: filters.name, tenant: filters.tenant }), format)
          }
        />
      )}
      <JobTable
        queue={name}
        state={data.state}
        jobs={data.jobs}
        canOperate={canOperate}
        filtered={data.scan !== undefined}
        actions={actions}
        onChanged={refresh}
      />
      <Pagination
        page={data.page}
        pageCount={data.pageCount}
        hasNext={data.hasNext}
        hrefFor={(page) => queueHref(name, { ...filters, page })}
        label={`Pages of ${data.state} jobs`}
      />
      {data.total !== undefined && data.total > 0 && (
        <p className="small muted">{plural(data.total, `${data.state} job`)}, newest first.</p>
      )}
      {/* Below the jobs: at 3 a.m. the jobs come first, the settings after. */}
      {data.queue.throughput && (
        <ThroughputCard queue={name} throughput={data.queue.throughput} canOperate={canOperate} actions={actions} onChanged={refresh} />
      )}
    </div>
  );
}
