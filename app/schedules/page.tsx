import type { Metadata } from 'next';
import { Suspense } from 'react';
import { requireUser } from '@/dashboard/auth/require-user';
import { ScheduleList } from '@/components/schedules/schedule-list';
import { CardSkeleton } from '@/components/ui/skeleton';
import { roleAtLeast } from '@/dashboard/auth/roles';
import { editSchedule, pauseSchedule, resetSchedule, resumeSchedule, triggerSchedule } from './actions';
import { loadSchedules } from '@/dashboard/reads';
import { liveUrls } from '@/dashboard/client/query-keys';

export const metadata: Metadata = { title: 'Schedules' };

const actions = { edit: editSchedule, pause: pauseSchedule, resume: resumeSchedule, reset: resetSchedule, trigger: triggerSchedule };

export default async function SchedulesPage() {
  const user = await requireUser('viewer', '/schedules');
  return (
    <>
      <div className="page-head">
        <h1>Schedules</h1>
        <span className="small muted">
          Cron patterns have six fields, seconds first. An operator’s edit wins over the code’s default at every boot.
        </span>
      </div>
      <Suspense fallback={<CardSkeleton title="Schedules" rows={8} />}>
        <Schedules canOperate={roleAtLeast(user.role, 'operator')} />
      </Suspense>
    </>
  );
}

async function Schedules({ canOperate }: { canOperate: boolean }) {
  return (
    <ScheduleList
      initial={await loadSchedules()}
      liveUrl={liveUrls.schedules()}
      previewUrl={liveUrls.schedulePreview()}
      actions={canOperate ? actions : undefined}
    />
  );
}
