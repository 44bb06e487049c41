/**
 * A Retry-After header as milliseconds from `nowMs`: either delay-seconds (`120`) or an
 * HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`). Undefined when absent or unreadable; a
 * date in the past gives 0.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1_000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
