import Link from 'next/link';

export default function JobNotFound() {
  return (
    <div className="card" data-testid="not-found">
      <h1>Job not found</h1>
      <p>
        No job with this id in this queue. Finished jobs are removed by retention (the last 100 completed and 1,000 failed are kept); a
        failed job's record may still be among the dead letters.
      </p>
      <p className="row">
        <Link href="/queues">All queues</Link>
        <Link href="/dead-letters">Dead letters</Link>
      </p>
    </div>
  );
}
