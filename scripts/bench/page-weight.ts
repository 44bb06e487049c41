/**
 * What fills a page's HTML: the React Server Components payload Next.js inlines for
 * hydration (`self.__next_f.push(...)` scripts), other inline scripts, and the markup,
 * each in bytes as sent and gzipped (what a browser that asks for gzip receives).
 */
import { gzipSync } from 'node:zlib';

export interface PageWeight {
  bytes: number;
  gzipBytes: number;
  /** The flight payload's scripts (`self.__next_f.push`). */
  rscBytes: number;
  /** Every other inline `<script>` (no src). */
  inlineScriptBytes: number;
  /** The rest: elements, attributes, text, style and script tags that load files. */
  markupBytes: number;
}

const SCRIPT = /<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g;

export function pageWeight(html: string): PageWeight {
  const bytes = Buffer.byteLength(html);
  let rscBytes = 0;
  let inlineScriptBytes = 0;
  for (const m of html.matchAll(SCRIPT)) {
    const size = Buffer.byteLength(m[0]);
    if (m[1].includes('self.__next_f')) rscBytes += size;
    else inlineScriptBytes += size;
  }
  return {
    bytes,
    gzipBytes: gzipSync(html).length,
    rscBytes,
    inlineScriptBytes,
    markupBytes: bytes - rscBytes - inlineScriptBytes,
  };
}
