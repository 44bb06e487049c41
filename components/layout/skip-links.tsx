'use client';

import { usePathname } from 'next/navigation';
import { useEffect, useState } from 'react';
import { RESULTS_ID } from './results-id';

/**
 * The first stops of the Tab order: "Skip to content", and on a page with a results
 * table (queue jobs, dead letters, audit), "Skip to results", so the first row's
 * actions are a few presses away instead of past every header link and filter.
 * The second link appears only where the page has the table (looked up after each
 * navigation), so it never points at nothing.
 */
export function SkipLinks() {
  const pathname = usePathname();
  const [hasResults, setHasResults] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: pathname is the trigger: each navigation renders a new page.
  useEffect(() => {
    const check = () => setHasResults(document.getElementById(RESULTS_ID) !== null);
    check();
    // Tables load behind Suspense: look again when the page's content changes.
    const observer = new MutationObserver(check);
    const main = document.getElementById('main');
    if (main) observer.observe(main, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [pathname]);
  return (
    <nav aria-label="Skip links" className="skip-links">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      {hasResults && (
        <a href={`#${RESULTS_ID}`} className="skip-link" data-testid="skip-to-results">
          Skip to results
        </a>
      )}
    </nav>
  );
}
