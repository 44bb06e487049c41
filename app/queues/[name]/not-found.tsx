import Link from 'next/link';

export default function QueueNotFound() {
  return (
    <div className="card" data-testid="not-found">
      <h1>No such queue</h1>
      <p>Bullpen has one queue per job type; this name is not one of them.</p>
      <Link href="/queues">All queues</Link>
    </div>
  );
}
