'use client';

import Link from 'next/link';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { fetchJson, LiveFetchError } from '@/components/live/fetch-json';
import { Button } from '@/components/ui/button';
import { ProgressBar } from '@/components/ui/progress-bar';
import type { SearchStep } from '@/dashboard/client/read-models';
import { SEARCH_MAX_MATCHES, SEARCH_WINDOW, serializeSearchStep } from '@/dashboard/client/payload-search-params';
import { plural } from '@/dashboard/client/runtime-shared';
import type { JobSummary } from '@/dashboard/client/read-models';
import type { JobStateName } from '@/dashboard/client/job-states';
import { liveUrls } from '@/dashboard/client/query-keys';

interface Run {
  status: 'running' | 'done' | 'cancelled' | 'failed';
  scanned: number;
  window: number;
  capped: boolean;
  jobs: JobSummary[];
  /** Stopped at SEARCH_MAX_MATCHES. */
  full: boolean;
  message?: string;
}

const jobHref = (queue: string, id: string) => `/queues/${encodeURIComponent(queue)}/jobs/${encodeURIComponent(id)}`;

/**
 * Search the payloads of the newest jobs of the tab's state (with the page's name and
 * tenant filters): one request per step (1,000 ids or 8 MiB of data), a progress bar between them, and Cancel,
 * which aborts the request in flight and asks for no more.
 */
export function PayloadSearch({ queue, state, name, tenant }: { queue: string; state: JobStateName; name?: string; tenant?: string }) {
  const [q, setQ] = useState('');
  const [match, setMatch] = useState('');
  const [run, setRun] = useState<Run | null>(null);
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);

  async function start(e: FormEvent) {
    e.preventDefault();
    controller.current?.abort();
    const ac = new AbortController();
    controller.current = ac;
    let current: Run = { status: 'running', scanned: 0, window: 0, capped: false, jobs: [], full: false };
    setRun(current);
    try {
      for (let from = 0; ; ) {
        const url = liveUrls.search(
          queue,
          serializeSearchStep({ state, q: q || undefined, match: match.trim() || undefined, name, tenant, from }),
        );
        const step = await fetchJson<SearchStep>(url, ac.signal);
        if (ac.signal.aborted) return;
        const jobs = [...current.jobs, ...step.jobs].slice(0, SEARCH_MAX_MATCHES);
        const full = jobs.length >= SEARCH_MAX_MATCHES || step.more;
        const done = step.done || full;
        current = {
          ...current,
          scanned: step.scanned,
          window: step.window,
          capped: step.capped,
          jobs,
          full,
          status: done ? 'done' : 'running',
        };
        setRun(current);
        if (done) return;
        from = step.scanned;
      }
    } catch (err) {
      if (ac.signal.aborted) return;
      setRun({ ...current, status: 'failed', message: err instanceof LiveFetchError ? err.message : 'The search failed' });
    }
  }

  function cancel() {
    controller.current?.abort();
    setRun((r) => (r && r.status === 'running' ? { ...r, status: 'cancelled' } : r));
  }

  const running = run?.status === 'running';
  const pct = run && run.window > 0 ? (run.scanned / run.window) * 100 : 0;
  return (
    <section className="card stack" aria-label="Search payloads" data-testid="payload-search">
      <form className="filters" role="search" onSubmit={start} data-testid="payload-search-form">
        <div className="field">
          <label htmlFor="payload-search-text">Payload contains</label>
          <input
            id="payload-search-text"
            value={q}
            onChange={(e) => setQ(e.target.value)}
            placeholder="text, as it is in the JSON"
            maxLength={200}
            data-testid="payload-search-text"
          />
        </div>
        <div className="field">
          <label htmlFor="payload-search-path">Path = value</label>
          <input
            id="payload-search-path"
            value={match}
            onChange={(e) => setMatch(e.target.value)}
            placeholder="payload.user.id=42"
            maxLength={300}
            data-testid="payload-search-path"
          />
        </div>
        <Button type="submit" disabled={running || (!q && !match.trim())} data-testid="payload-search-submit">
          Search
        </Button>
        {running && (
          <Button onClick={cancel} data-testid="payload-search-cancel">
            Cancel
          </Button>
        )}
      </form>
      <p className="small muted" style={{ margin: 0 }}>
        Searches the newest {SEARCH_WINDOW.toLocaleString('en-US')} {state} jobs
        {name || tenant ? ' that match the filters above' : ''}, up to 1,000 jobs or 8 MB of data per step; stops at {SEARCH_MAX_MATCHES}{' '}
        matches. A path starts at the job&apos;s data (Bullpen&apos;s jobs keep the payload under <code>payload</code>).
      </p>
      {run && (
        <>
          <ProgressBar value={pct} label="Search progress" testId="payload-search-progress" />
          <p className="small" role="status" data-testid="payload-search-status" data-state={run.status} data-scanned={run.scanned}>
            {summary(run, state)}
          </p>
          {run.jobs.length > 0 && (
            <ul className="stack" style={{ margin: 0, paddingLeft: '1.2rem' }}>
              {run.jobs.map((j) => (
                <li key={j.id} data-testid="payload-search-result" data-job-id={j.id}>
                  <Link href={jobHref(queue, j.id)} className="mono">
                    {j.id}
                  </Link>{' '}
                  <span className="small muted">
                    {j.name}
                    {j.tenant ? ` · tenant ${j.tenant.orgId}` : ''}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}

function summary(run: Run, state: string): string {
  const found = plural(run.jobs.length, 'match', 'matches');
  const searched = `${run.scanned.toLocaleString('en-US')} of ${run.window.toLocaleString('en-US')} ${state} jobs`;
  switch (run.status) {
    case 'running':
      return `Searching… ${searched}, ${found} so far.`;
    case 'cancelled':
      return `Cancelled after ${searched}: ${found}.`;
    case 'failed':
      return `${run.message ?? 'The search failed'} (after ${searched}).`;
    default:
      if (run.full) return `Stopped at ${found} after ${searched}; narrow the search for the rest.`;
      return `${found[0].toUpperCase()}${found.slice(1)} in ${searched}${run.capped ? '; older jobs were not searched' : ''}.`;
  }
}
