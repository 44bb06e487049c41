/**
 * The types of what the dashboard's reads and operations hand the pages, named here so
 * that components/ import the dashboard through dashboard/client/ only. Each is defined
 * once, by its read model's zod schema beside the read that fills it (bull-board's
 * `formatJob`: a job is mapped once into a plain object); a type-only export is erased
 * before the browser sees it, so nothing on the server reaches the client bundle.
 */
export type { AuditRow } from '../audit/audit-page';
export type { SelectedOutcome } from '../dead-letters/dead-letters-bulk';
export type { DeadLetterDetail, DeadLetterList, DeadLetterRow } from '../dead-letters/dead-letters-read';
export type { ReplayResult } from '../dead-letters/dead-letters-replay-outcome';
export type { LastReplay } from '../dead-letters/last-replay';
export type { Latency, OverallHistory, QueueHistory, QueueLatency } from '../history/queue-history';
export type { FlowNode, JobFlow } from '../jobs/job-flow';
export type { JobPage } from '../jobs/job-page';
export type { JobDetail, JobSummary } from '../jobs/job-summary';
export type { PayloadChange } from '../jobs/payload-changes';
export type { BulkOperation } from '../live/bulk-runner';
export type { ForeignQueues } from '../queues/foreign-queues';
export type { SearchStep } from '../queues/payload-search';
export type { RetryCounts, RetryPreview } from '../queues/queue-operations';
export type { Overview, QueueOverview, StateCounts } from '../queues/queue-overview';
export type { QueuePage } from '../queues/queue-page';
export type { ScheduleFormInput } from '../schedules/schedules-form';
export type { Reenabled, WebhookReplays } from '../webhooks/webhook-operations';
export type { DeliveryRow, WebhookDetail, WebhookList, WebhookRow } from '../webhooks/webhooks-read';
export type { WorkersView } from '../workers/workers-view';
