import { describe, expect, it } from 'vitest';
import { parseDeadLetterFilters } from '@/dashboard/client/dead-letters-filters';
import { liveKeyOfPath, liveKeys } from '@/dashboard/live/live-keys';
import { parseQueueFilters } from '@/dashboard/client/queue-filters';

const key = (url: string) => {
  const u = new URL(url, 'http://x');
  return liveKeyOfPath(u.pathname, u.searchParams);
};

describe('live keys of a polled URL', () => {
  it('builds, from the URL, the key the route handler reads', () => {
    expect(key('/api/live/overview')).toBe(liveKeys.overview());
    expect(key('/api/live/workers')).toBe(liveKeys.workers());
    expect(key('/api/live/schedules')).toBe(liveKeys.schedules());
    expect(key('/api/live/history?range=7d')).toBe(liveKeys.overallHistory('7d'));
    expect(key('/api/live/history?range=bogus')).toBe(liveKeys.overallHistory('1h'));
    expect(key('/api/live/queues/email-send/history?range=24h')).toBe(liveKeys.queueHistory('email-send', '24h'));
    const q = new URLSearchParams('state=failed&page=2&tenant=acme');
    expect(key(`/api/live/queues/email-send?${q}`)).toBe(liveKeys.queuePage('email-send', parseQueueFilters(q)));
    const d = new URLSearchParams('type=email-send&status=pending');
    expect(key(`/api/live/dead-letters?${d}`)).toBe(liveKeys.deadLetters(parseDeadLetterFilters(d).filters));
  });

  it('decodes a queue name as Next.js hands it to the route', () => {
    expect(key('/api/live/queues/bull~my%20queue')).toBe(liveKeys.queuePage('bull~my queue', parseQueueFilters(new URLSearchParams())));
  });

  it('names no key for other routes, extra segments or broken encodings', () => {
    for (const path of [
      '/api/live/session',
      '/api/live/health',
      '/api/live/queues',
      '/api/live/queues/a/jobs/1',
      '/api/live/queues/a/search',
      '/api/live/queues/a/retry-preview',
      '/api/live/overview/x',
      '/api/live/overview/',
      '/api/live//overview',
      '/api/live/queues/%E0%A4%A',
      '/api/other',
      '/overview',
    ]) {
      expect(key(path), path).toBeUndefined();
    }
  });
});
