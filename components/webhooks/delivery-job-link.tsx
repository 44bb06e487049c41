import Link from 'next/link';
import { jobPageHref } from '@/dashboard/client/schedules-view';

/**
 * A delivery's job, linked to its job page under the type that delivers the application's
 * webhooks (the server hands it over as data: WebhookDetail.deliveryJobType); plain text
 * when the application has no such type.
 */
export function DeliveryJobLink(props: { jobType: string | null; jobId: string; className: string; testId: string }) {
  if (!props.jobType) {
    return (
      <span className={props.className} data-testid={props.testId}>
        {props.jobId}
      </span>
    );
  }
  return (
    <Link href={jobPageHref(props.jobType, props.jobId)} className={props.className} data-testid={props.testId}>
      {props.jobId}
    </Link>
  );
}
