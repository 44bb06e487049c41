import 'server-only';
import { parseDeadLetterFilters } from '@/dashboard/client/dead-letters-filters';
import { parseHistoryRange } from '@/dashboard/client/history-range';
import { parseQueueFilters } from '@/dashboard/client/queue-filters';
import {
  loadDeadLetterList,
  loadHealth,
  loadJobPage,
  loadOverallHistory,
  loadOverview,
  loadQueueHistory,
  loadQueuePage,
  loadWorkers,
} from '@/dashboard/reads';
import { AppError } from '@/lib/errors/app-error';

/** A subject is a live URL; past this length it is refused, not parsed. */
export const MAX_SUBJECT_LENGTH = 512;

/**
 * The read behind a stream's subject: the live URL a tab would poll (dashboard/client/query-keys.ts
 * `liveUrls`), answered with what that URL's route answers. Undefined for a URL the stream
 * does not carry (a search step, a bulk run, schedules, webhooks: those tabs poll).
 */
export function streamReadOf(subject: string): (() => Promise<unknown>) | undefined {
  if (subject.length > MAX_SUBJECT_LENGTH || !subject.startsWith('/api/live/')) return undefined;
  let url: URL;
  let segments: string[];
  try {
    url = new URL(subject, 'http://dashboard.invalid');
    // As Next.js hands a dynamic segment to its route: percent-decoded.
    segments = url.pathname.slice('/api/live/'.length).split('/').map(decodeURIComponent);
  } catch {
    return undefined;
  }
  if (segments.some((s) => s === '')) return undefined;
  const search = url.searchParams;
  const [first, name, sub, id, ...rest] = segments;
  if (rest.length > 0) return undefined;
  const only = (read: () => Promise<unknown>) => (name === undefined ? read : undefined);
  switch (first) {
    case 'overview':
      return only(() => loadOverview());
    case 'workers':
      return only(() => loadWorkers());
    case 'health':
      return only(() => loadHealth());
    case 'history':
      return only(() => loadOverallHistory(parseHistoryRange(search.get('range')).range));
    case 'dead-letters':
      return only(() => loadDeadLetterList(parseDeadLetterFilters(search).filters));
    case 'queues': {
      if (name === undefined) return undefined;
      if (sub === undefined) return () => loadQueuePage(name, parseQueueFilters(search));
      if (sub === 'history' && id === undefined) return () => loadQueueHistory(name, parseHistoryRange(search.get('range')).range);
      if (sub === 'jobs' && id !== undefined) {
        const logsPage = Number.parseInt(search.get('logs') ?? '1', 10) || 1;
        return async () => {
          // As the job route answers: a job that is gone is a 404, told to the tab.
          const page = await loadJobPage(name, id, logsPage);
          if (!page) throw new AppError('NOT_FOUND', `No job ${id} in ${name}`);
          return page;
        };
      }
      return undefined;
    }
    default:
      return undefined;
  }
}
