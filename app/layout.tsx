import type { Metadata, Viewport } from 'next';
import { cookies } from 'next/headers';
import { unstable_rethrow } from 'next/navigation';
import type { ReactNode } from 'react';
import { KeyboardShortcuts } from '@/components/keyboard/keyboard-shortcuts';
import { SiteHeader } from '@/components/layout/site-header';
import { LiveStreamNotice, LiveStreamProvider } from '@/components/live/live-stream';
import { RedisBanner, RedisStatusProvider } from '@/components/live/redis-status';
import { SkipLinks } from '@/components/layout/skip-links';
import { THEME_COOKIE, parseTheme } from '@/components/layout/theme';
import { Providers } from './providers';
import { currentUser } from '@/dashboard/auth/session';
import { roleAtLeast } from '@/dashboard/auth/roles';
import { signOut } from './sign-in/actions';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Bullpen', template: '%s · Bullpen' },
  description: 'Operations dashboard for Bullpen background jobs',
  robots: { index: false, follow: false },
};

export const viewport: Viewport = { width: 'device-width', initialScale: 1, colorScheme: 'light dark' };

export default async function RootLayout({ children }: { children: ReactNode }) {
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  // The header is chrome: if Redis is unreachable the page below shows the error, and the banner says so.
  let redisFailed = false;
  const user = await currentUser().catch((err: unknown) => {
    unstable_rethrow(err);
    redisFailed = true;
    return null;
  });
  const watchRedis = user !== null || redisFailed;
  return (
    <html lang="en" data-theme={theme === 'system' ? undefined : theme}>
      <body>
        <Providers>
          <LiveStreamProvider enabled={user !== null}>
            <RedisStatusProvider enabled={watchRedis}>
              <SkipLinks />
              {user && <SiteHeader username={user.username} role={user.role} theme={theme} signOutAction={signOut} />}
              <main id="main">
                {watchRedis && <RedisBanner />}
                {user && <LiveStreamNotice />}
                {children}
              </main>
              {user && <KeyboardShortcuts canOperate={roleAtLeast(user.role, 'operator')} />}
            </RedisStatusProvider>
          </LiveStreamProvider>
        </Providers>
      </body>
    </html>
  );
}
