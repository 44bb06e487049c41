/** The job type that delivers webhooks: its queue holds the deliveries' jobs. */
export const WEBHOOK_JOB_TYPE = 'webhook-dispatch';
