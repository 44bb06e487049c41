import Link from 'next/link';
import { NavLinks } from './nav-links';
import { ThemeToggle } from './theme-toggle';
import type { Theme } from './theme';

/** The top bar of every signed-in page. Sign-out is a POST (a server action), never a link. */
export function SiteHeader(props: { username: string; role: string; theme: Theme; signOutAction: () => Promise<void> }) {
  const { username, role, theme, signOutAction } = props;
  return (
    <header className="site-header">
      <nav className="inner" aria-label="Main">
        <Link href="/" className="brand">
          Bullpen
        </Link>
        <NavLinks />
        <div className="user-menu">
          <ThemeToggle initial={theme} />
          <span data-testid="current-user">
            {username} <span className="badge tone-neutral">{role}</span>
          </span>
          <form action={signOutAction}>
            <button type="submit" className="btn btn-sm" data-testid="sign-out">
              Sign out
            </button>
          </form>
        </div>
      </nav>
    </header>
  );
}
