/** A post-sign-in target limited to this site's paths: `/x` yes, `//evil`, `/\evil`, `https://…` no. */
export function safeNextPath(next: string | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  return next;
}
