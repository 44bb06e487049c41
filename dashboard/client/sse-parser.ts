/** One Server-Sent Event as a tab receives it. */
export interface SseEvent {
  event: string;
  data: string;
}

/** An event's text longer than this without its blank line is no stream the dashboard sends. */
export const MAX_SSE_EVENT_CHARS = 16 * 1024 * 1024;

/**
 * Splits a `text/event-stream` body into events as its chunks arrive (the parts of the
 * format the dashboard's stream uses: `event:` and `data:` lines, comments ignored, events
 * ended by a blank line), as the browser's EventSource would. The tab reads the stream with
 * fetch rather than EventSource so that a refusal's status and words reach the page.
 */
export class SseParser {
  private buffer = '';

  /** The events completed by `chunk`; throws past MAX_SSE_EVENT_CHARS of an unfinished one. */
  push(chunk: string): SseEvent[] {
    this.buffer += chunk.replace(/\r\n?/g, '\n');
    const events: SseEvent[] = [];
    let end = this.buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const parsed = parseBlock(block);
      if (parsed) events.push(parsed);
      end = this.buffer.indexOf('\n\n');
    }
    if (this.buffer.length > MAX_SSE_EVENT_CHARS) throw new Error(`An event of the live stream passed ${MAX_SSE_EVENT_CHARS} characters`);
    return events;
  }
}

function parseBlock(block: string): SseEvent | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length > 0 ? { event, data: data.join('\n') } : undefined;
}
