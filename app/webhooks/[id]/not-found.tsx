import Link from 'next/link';

export default function WebhookNotFound() {
  return (
    <div className="card" data-testid="not-found">
      <h1>No such webhook</h1>
      <p>It may have been deleted; its delivery records went with it.</p>
      <Link href="/webhooks">Back to the webhooks</Link>
    </div>
  );
}
