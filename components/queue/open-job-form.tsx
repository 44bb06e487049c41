'use client';

import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';

/** "Open job by id": with a fixed queue (queue page) or a queue picker (queues list). */
export function OpenJobForm({ queue, queues = [] }: { queue?: string; queues?: readonly string[] }) {
  const router = useRouter();
  const [q, setQ] = useState(queue ?? queues[0] ?? '');
  const [id, setId] = useState('');
  const idField = useId();
  const queueField = useId();
  return (
    <form
      className="row"
      role="search"
      aria-label="Open a job by id"
      onSubmit={(e) => {
        e.preventDefault();
        const jobId = id.trim();
        if (jobId) router.push(`/queues/${encodeURIComponent(q)}/jobs/${encodeURIComponent(jobId)}`);
      }}
    >
      {!queue && (
        <>
          <label htmlFor={queueField} className="small">
            Queue
          </label>
          <select id={queueField} value={q} onChange={(e) => setQ(e.target.value)} data-testid="open-job-queue">
            {queues.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </>
      )}
      <label htmlFor={idField} className="small">
        Job id
      </label>
      <input
        id={idField}
        value={id}
        onChange={(e) => setId(e.target.value)}
        placeholder="e.g. 1234"
        size={14}
        data-testid="open-job-input"
        // `/` focuses it (components/keyboard/keyboard-shortcuts.tsx): the job id is the sharpest search.
        data-shortcut-search
      />
      <button type="submit" className="btn" data-testid="open-job-submit">
        Open
      </button>
    </form>
  );
}
