'use client';

import { useEffect, useState } from 'react';

/**
 * The current time, refreshed every `everyMs`; null during the server render and
 * hydration, so relative texts ("in 4 min") never differ between server and browser.
 */
export function useNow(everyMs = 15_000): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}
