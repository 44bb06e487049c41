import type { Metadata } from 'next';
import { Suspense } from 'react';
import { readAlertsPage } from '@/dashboard/alerts/alerts-read';
import { requireUser } from '@/dashboard/auth/require-user';
import { roleAtLeast } from '@/dashboard/auth/roles';
import { readyBullpen } from '@/dashboard/dashboard-process';
import { type AlertActionSet, FiringAlerts, ResolvedAlerts } from '@/components/alerts/alert-list';
import { type ChannelActionSet, ChannelSetup } from '@/components/alerts/channel-setup';
import { RuleSetup } from '@/components/alerts/rule-setup';
import { CardSkeleton } from '@/components/ui/skeleton';
import { acknowledgeAlert, removeAlertChannel, saveAlertChannel, silenceAlert, testAlertChannel, updateAlertRules } from './actions';

export const metadata: Metadata = { title: 'Alerts' };

export default async function AlertsPage() {
  const user = await requireUser('viewer', '/alerts');
  const operate: AlertActionSet | undefined = roleAtLeast(user.role, 'operator')
    ? { acknowledge: acknowledgeAlert, silence: silenceAlert }
    : undefined;
  const admin = roleAtLeast(user.role, 'admin');
  const channels: ChannelActionSet | undefined = admin
    ? { save: saveAlertChannel, remove: removeAlertChannel, test: testAlertChannel }
    : undefined;
  return (
    <>
      <div className="page-head">
        <h1>Alerts</h1>
        <span className="small muted">What the worker's rules see, and where it tells people (docs/alerts.md).</span>
      </div>
      <Suspense fallback={<CardSkeleton title="Alerts" rows={6} />}>
        <Sections operate={operate} channels={channels} updateRules={admin ? updateAlertRules : undefined} />
      </Suspense>
    </>
  );
}

async function Sections(props: { operate?: AlertActionSet; channels?: ChannelActionSet; updateRules?: typeof updateAlertRules }) {
  const page = await readAlertsPage(await readyBullpen());
  return (
    <>
      <FiringAlerts rows={page.firing} actions={props.operate} />
      <ResolvedAlerts rows={page.resolved} />
      <ChannelSetup channels={page.channels} actions={props.channels} />
      <RuleSetup rules={page.rules} update={props.updateRules} />
    </>
  );
}
