/** Any origin works as the base: the check is that parsing stays on it. */
const BASE = 'http://bullpen.invalid';

/**
 * A post-sign-in target limited to this site's paths. The text is parsed as the
 * browser will (`new URL(next, origin)`: tabs and newlines are dropped, `\` is `/`), and
 * only a target that stays on the same origin is kept, as its path, query and hash;
 * anything else is `/`. `/x` yes; `//evil`, `/\evil`, `/\t/evil`, `https://…` no.
 */
export function safeNextPath(next: string | undefined): string {
  if (!next?.startsWith('/')) return '/';
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return '/';
  }
  if (url.origin !== BASE) return '/';
  const path = `${url.pathname}${url.search}${url.hash}`;
  // `/.//evil` parses to the path `//evil`, which a browser would read as another host.
  return path.startsWith('//') || path.startsWith('/\\') ? '/' : path;
}
