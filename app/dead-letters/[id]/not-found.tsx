import Link from 'next/link';

export default function DeadLetterNotFound() {
  return (
    <div className="card" data-testid="not-found">
      <h1>No such dead letter</h1>
      <p>It may have been purged by an administrator or removed by retention (replayed and discarded entries are kept 30 days).</p>
      <Link href="/dead-letters">Back to the dead letters</Link>
    </div>
  );
}
