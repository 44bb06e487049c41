import type { Page } from '@playwright/test';

/**
 * React's streamed HTML puts each Suspense boundary's content, once the server has it, in
 * a hidden `<div id="S:n">` and moves it into place in a later frame; since React 19.2 it
 * holds such reveals back in batches, up to 300 ms after the previous one. Meanwhile the
 * client may already have rendered the same boundary from Next's RSC payload. For that
 * moment the page holds two copies of the boundary, one hidden, and a test id in it
 * matches twice: Playwright's strict locators refuse that ("strict mode violation"), as
 * the stress runs saw on a fast machine (docs/testing.md, "Under load"). An operator
 * never sees the hidden copy; a test reading the page the moment it loaded did.
 *
 * So, after a document load, a test waits until React has placed every streamed boundary.
 * A page with none waits for nothing, and so would a React that no longer streams this way.
 */
export async function streamedContentPlaced(page: Page, timeoutMs = 10_000): Promise<void> {
  await page.waitForFunction(() => document.querySelector('div[hidden][id^="S:"]') === null, undefined, { timeout: timeoutMs });
}

const PLACED = Symbol('bullpen.streamedContentPlaced');

/**
 * Makes `goto` and `reload`, on every page of this test process (they share one class),
 * resolve only once the loaded document's streamed content is in place. Once per process.
 */
export function waitForStreamedContentOnLoad(page: Page): void {
  const proto = Object.getPrototypeOf(page) as Page & { [PLACED]?: true };
  if (proto[PLACED]) return;
  proto[PLACED] = true;
  const { goto, reload } = proto;
  proto.goto = async function (this: Page, ...args: Parameters<Page['goto']>) {
    const response = await goto.apply(this, args);
    await streamedContentPlaced(this);
    return response;
  };
  proto.reload = async function (this: Page, ...args: Parameters<Page['reload']>) {
    const response = await reload.apply(this, args);
    await streamedContentPlaced(this);
    return response;
  };
}
