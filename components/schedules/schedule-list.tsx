'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { fetchJson } from '@/components/live/fetch-json';
import { LiveStatus } from '@/components/live/live-status';
import { queryKeys } from '@/dashboard/client/query-keys';
import type { ScheduleSummary } from '@/dashboard/client/runtime-shared';
import type { ScheduleActions } from './schedule-actions';
import { ScheduleCard } from './schedule-card';
import { useNow } from './use-now';

export interface ScheduleListProps {
  initial: ScheduleSummary[];
  liveUrl: string;
  previewUrl: string;
  /** Absent for viewers: no mutating control is rendered at all. */
  actions?: ScheduleActions;
}

/** Every schedule as a card, refreshed every few seconds (last runs and next fire times move). */
export function ScheduleList({ initial, liveUrl, previewUrl, actions }: ScheduleListProps) {
  const client = useQueryClient();
  const q = useQuery({
    queryKey: queryKeys.schedules(),
    queryFn: ({ signal }) => fetchJson<ScheduleSummary[]>(liveUrl, signal),
    initialData: initial,
  });
  const now = useNow();
  const refresh = useCallback(() => client.invalidateQueries({ queryKey: queryKeys.schedules() }), [client]);
  const active = q.data.filter((s) => s.active).length;
  return (
    <div className="stack">
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <span className="small muted" data-testid="schedule-count">
          {q.data.length} schedules · {active} active in this build
        </span>
        <LiveStatus updatedAt={q.dataUpdatedAt} error={q.error} fetching={q.isFetching} />
      </div>
      {q.data.map((s) => (
        <ScheduleCard key={s.name} schedule={s} now={now} previewUrl={previewUrl} actions={actions} onChanged={refresh} />
      ))}
    </div>
  );
}
