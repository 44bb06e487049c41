'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';

const LINKS = [
  { href: '/', label: 'Overview' },
  { href: '/queues', label: 'Queues' },
  { href: '/workers', label: 'Workers' },
  { href: '/dead-letters', label: 'Dead letters' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/schedules', label: 'Schedules' },
  { href: '/alerts', label: 'Alerts' },
  { href: '/health', label: 'Health' },
  { href: '/audit', label: 'Audit' },
] as const;

export function NavLinks() {
  const path = usePathname();
  return (
    <ul className="nav">
      {LINKS.map((l) => {
        const active = l.href === '/' ? path === '/' : path === l.href || path.startsWith(`${l.href}/`);
        return (
          <li key={l.href}>
            <Link
              href={l.href}
              aria-current={active ? 'page' : undefined}
              data-testid={`nav-${l.href === '/' ? 'overview' : l.href.slice(1)}`}
            >
              {l.label}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
