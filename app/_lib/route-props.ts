/** The props Next passes a page, spelled out so `tsc` works before `next typegen` has run. */
export type SearchParams = Record<string, string | string[] | undefined>;

export interface RouteProps<P extends Record<string, string> = Record<string, never>> {
  params: Promise<P>;
  searchParams: Promise<SearchParams>;
}

/** The first value of a search param (a repeated `?a=1&a=2` keeps the first). */
export function firstParam(sp: SearchParams, key: string): string | undefined {
  const v = sp[key];
  return Array.isArray(v) ? v[0] : v;
}

/** A path segment decoded once; a malformed escape is kept as written instead of throwing. */
export function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
