import Link from 'next/link';

export default function NotFound() {
  return (
    <div className="card" data-testid="not-found">
      <h1>Not found</h1>
      <p>There is nothing at this address. The job may have been removed by retention or by an operator.</p>
      <Link href="/">Back to the overview</Link>
    </div>
  );
}
