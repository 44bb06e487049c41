'use client';

import { useRouter } from 'next/navigation';
import { useEffect } from 'react';

/**
 * Re-renders the server page every `intervalMs` while `active` holds (a replay is being
 * enqueued or its job has not ended), so the entry page moves on from "replayed" to
 * what became of the replay without a reload. Stops by itself once it has ended.
 */
export function RefreshWhile({ active, intervalMs = 2_000 }: { active: boolean; intervalMs?: number }) {
  const router = useRouter();
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') router.refresh();
    }, intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs, router]);
  return null;
}
