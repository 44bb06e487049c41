/**
 * Slack message timestamps (`"1700000000.000100"`) are ids as well as times; they are
 * compared as (seconds, fraction) so a shorter fraction cannot sort wrong.
 */
export function compareSlackTs(a: string, b: string): number {
  const [as, af = ''] = a.split('.');
  const [bs, bf = ''] = b.split('.');
  const s = Number(as) - Number(bs);
  if (s !== 0) return s;
  const width = Math.max(af.length, bf.length);
  return Number(af.padEnd(width, '0')) - Number(bf.padEnd(width, '0'));
}

/** Milliseconds since the epoch of a Slack ts. */
export function slackTsToMs(ts: string): number {
  return Math.floor(Number(ts) * 1000);
}
