import Link from 'next/link';

export default function Unauthorized() {
  return (
    <div className="card auth-card" data-testid="unauthorized">
      <h1>401 — please sign in</h1>
      <p>Your session has ended or you are not signed in.</p>
      <Link href="/sign-in" className="btn btn-primary">
        Sign in
      </Link>
    </div>
  );
}
