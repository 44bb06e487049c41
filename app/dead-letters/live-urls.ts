/** The dead-letters list's live JSON endpoint (app/dead-letters/live/route.ts) for a filter's query string. */
export function deadLettersLiveUrl(search: string): string {
  return `/dead-letters/live${search ? `?${search}` : ''}`;
}
