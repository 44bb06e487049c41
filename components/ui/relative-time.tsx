'use client';

import { useEffect, useState } from 'react';

/** "3 min ago" with the exact UTC time in a tooltip; re-renders every 30 s. */
export function RelativeTime({ ms, testId }: { ms: number | null | undefined; testId?: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);
  if (!ms) return <span className="muted">—</span>;
  const iso = new Date(ms).toISOString();
  return (
    <time dateTime={iso} title={iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')} data-testid={testId} suppressHydrationWarning>
      {formatAgo(now - ms)}
    </time>
  );
}

export function formatAgo(deltaMs: number): string {
  const future = deltaMs < 0;
  const s = Math.abs(deltaMs) / 1000;
  const text =
    s < 5
      ? 'just now'
      : s < 60
        ? `${Math.floor(s)} s`
        : s < 3600
          ? `${Math.floor(s / 60)} min`
          : s < 86_400
            ? `${Math.floor(s / 3600)} h`
            : `${Math.floor(s / 86_400)} d`;
  if (text === 'just now') return text;
  return future ? `in ${text}` : `${text} ago`;
}
