import Link from 'next/link';

export default function Forbidden() {
  return (
    <div className="card" data-testid="forbidden">
      <h1>403 — not allowed</h1>
      <p>Your role does not allow this. Ask an admin if you need it.</p>
      <Link href="/">Back to the overview</Link>
    </div>
  );
}
