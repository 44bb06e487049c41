/**
 * First contentful paint of a dashboard page from a cold browser: a new Chromium process
 * (no cache, no compiled scripts) per sample, the signed-in viewer's cookie set, the page
 * loaded (its load event), and the `first-contentful-paint` entry read from the page's own
 * Performance timeline once the browser has it. Not "until the network is idle": a
 * dashboard page holds its live stream open, so its network never is.
 */
import { chromium } from 'playwright';
import type { RunningDashboard } from './dashboard-next';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** FCP of `path` in ms from navigation start, once per cold browser, `samples` times. */
export async function firstPaints(d: RunningDashboard, path: string, samples: number): Promise<number[]> {
  const [name, ...rest] = d.cookie.split('=');
  const paints: number[] = [];
  for (let i = 0; i < samples; i++) {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const context = await browser.newContext();
      await context.addCookies([{ name, value: rest.join('='), url: d.url }]);
      const page = await context.newPage();
      const res = await page.goto(`${d.url}${path}`, { waitUntil: 'load' });
      if (res?.status() !== 200) throw new Error(`GET ${path} in Chromium answered ${res?.status()}`);
      const entry = await page
        .waitForFunction(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime, undefined, { timeout: 10_000 })
        .catch(() => undefined);
      const fcp = entry ? Number(await entry.jsonValue()) : Number.NaN;
      if (!Number.isFinite(fcp)) throw new Error(`Chromium reported no first contentful paint for ${path} within 10 s of its load`);
      paints.push(fcp);
    } finally {
      await browser.close();
    }
  }
  return paints;
}
