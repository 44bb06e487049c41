import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { pageWeight } from '@/scripts/bench/page-weight';

describe('the page weight', () => {
  it('splits the HTML into the RSC payload, other inline scripts and the markup', () => {
    const rsc = '<script>self.__next_f.push([1,"0:{\\"rows\\":[1,2,3]}"])</script>';
    const inline = '<script>document.documentElement.dataset.theme="dark"</script>';
    const external = '<script src="/_next/static/chunks/app.js" async=""></script>';
    const markup = `<html><head>${external}</head><body><table><tr><td>job 1</td></tr></table>`;
    const html = `${markup}${inline}${rsc}</body></html>`;
    const w = pageWeight(html);
    expect(w.bytes).toBe(Buffer.byteLength(html));
    expect(w.rscBytes).toBe(Buffer.byteLength(rsc));
    expect(w.inlineScriptBytes).toBe(Buffer.byteLength(inline));
    // A script that loads a file is markup: its bytes are the tag, not data.
    expect(w.markupBytes).toBe(Buffer.byteLength(markup) + Buffer.byteLength('</body></html>'));
    expect(w.gzipBytes).toBe(gzipSync(html).length);
  });

  it('counts bytes, not characters', () => {
    expect(pageWeight('<p>déjà</p>').bytes).toBe(13);
  });
});
