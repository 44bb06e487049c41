import AxeBuilder from '@axe-core/playwright';
import type { BrowserContext, Locator, Page } from '@playwright/test';
import { THEME_COOKIE } from '@/components/layout/theme';
import { JobPage } from './pages/job-page';
import type { AppShell } from './pages/app-shell';
import { SignInPage } from './pages/sign-in-page';
import { failWebhookDelivery, type FailedDelivery } from './support/dead-letters';
import type { E2eRole } from './support/e2e-state';
import { WebhookReceiver } from './support/webhook-receiver';
import { expect, saveScreenshot, test } from './fixtures';

/**
 * The issue's two promises, checked on every page of the dashboard:
 * "axe: 0 violations on every page, in light and dark", and "on a phone (390×844)
 * every tap target is at least 24 px" (WCAG 2.2 SC 2.5.8, Target Size (Minimum)).
 */

const QUEUE = 'webhook-dispatch';
/** WCAG 2.2 AA, and axe's best practices (landmark-unique, empty-table-header, region, …), whatever their impact. */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

interface Fixture {
  failed: FailedDelivery;
  completedJobId: string;
}

/** A page to check: where it is and what shows that its live data has arrived. */
interface Stop {
  name: string;
  path: string;
  ready(page: Page): Locator;
}

function stops(f: Fixture): Stop[] {
  const queue = `/queues/${QUEUE}`;
  return [
    { name: 'overview', path: '/', ready: (p) => p.getByTestId('queue-table') },
    { name: 'queues', path: '/queues', ready: (p) => p.getByTestId('queue-table') },
    { name: 'queue, failed tab', path: `${queue}?state=failed`, ready: (p) => p.getByTestId('job-row').first() },
    { name: 'queue, waiting tab', path: `${queue}?state=waiting`, ready: (p) => jobsOrEmpty(p) },
    { name: 'queue, completed tab', path: `${queue}?state=completed`, ready: (p) => p.getByTestId('job-row').first() },
    {
      name: 'failed job',
      path: `${queue}/jobs/${f.failed.jobId}`,
      ready: (p) => p.getByTestId('job-dead-letter-link'),
    },
    {
      name: 'completed job',
      path: `${queue}/jobs/${f.completedJobId}`,
      ready: (p) => p.getByTestId('job-return-value'),
    },
    { name: 'dead letters', path: `/dead-letters?type=${QUEUE}`, ready: (p) => p.getByTestId('dlq-row').first() },
    {
      name: 'dead-letter entry',
      path: `/dead-letters/${encodeURIComponent(f.failed.entry.id)}`,
      ready: (p) => p.getByTestId('dlq-failure-history'),
    },
    { name: 'webhooks', path: '/webhooks', ready: (p) => p.getByTestId('webhook-row').first() },
    {
      name: 'webhook',
      path: `/webhooks/${encodeURIComponent(f.failed.webhookId)}`,
      ready: (p) => p.getByTestId('webhook-delivery').first(),
    },
    { name: 'schedules', path: '/schedules', ready: (p) => p.getByTestId('schedule-row').first() },
    { name: 'health', path: '/health', ready: (p) => p.getByTestId('health-overall') },
    { name: 'workers', path: '/workers', ready: (p) => p.getByTestId('workers-process').first() },
    { name: 'audit', path: '/audit', ready: (p) => p.getByTestId('audit-row').first() },
    { name: 'not found', path: '/no-such-page', ready: (p) => p.getByTestId('not-found') },
  ];
}

function jobsOrEmpty(page: Page): Locator {
  return page.getByTestId('job-table').or(page.getByTestId('jobs-empty')).first();
}

/** Opens `stop` and waits until its data is there: the marker is visible and no skeleton is left. */
async function visit(page: Page, stop: Stop): Promise<void> {
  await page.goto(stop.path);
  await expect(stop.ready(page), `${stop.name}: its data`).toBeVisible();
  await expect(page.getByTestId('skeleton'), `${stop.name}: skeletons`).toHaveCount(0);
  await expect(page, `${stop.name}: the title names the product`).toHaveTitle(/Bullpen$/);
}

let receiver: WebhookReceiver | undefined;
let fixture: Fixture | undefined;

test.beforeAll(async ({ bullpen }) => {
  receiver = await WebhookReceiver.start(400);
  const failed = await failWebhookDelivery(bullpen, receiver, 'e2e.a11y');
  // The same webhook, now answered 200: a delivery that completes at once.
  receiver.answer = 200;
  const { jobId } = await bullpen.dispatcher.dispatch(QUEUE, { webhookId: failed.webhookId, event: 'e2e.a11y-ok', payload: { e2e: true } });
  fixture = { failed, completedJobId: jobId };
});

test.afterAll(async ({ bullpen }) => {
  await receiver?.close();
  if (!fixture) return;
  const entry = await bullpen.dlq.get(fixture.failed.entry.id);
  if (entry?.status === 'pending') await bullpen.dlq.discard(entry.id, 'e2e-cleanup');
  await bullpen.webhooks.delete(fixture.failed.webhookId);
});

/** Waits until the completed job shows as completed, so its page and tab are not scanned mid-run. */
async function awaitCompleted(page: Page, f: Fixture): Promise<void> {
  const job = new JobPage(page);
  await job.goto(QUEUE, f.completedJobId);
  await expect(job.state).toHaveAttribute('data-status', 'completed');
}

/** Axe's findings as lines a person can act on: rule, impact, what it means, where. */
function describeViolations(results: Awaited<ReturnType<AxeBuilder['analyze']>>): string {
  return results.violations
    .map((v) =>
      [
        `- ${v.id} (${v.impact ?? 'n/a'}): ${v.help} [${v.nodes.length} node(s)]`,
        ...v.nodes.slice(0, 8).map((n) => `    ${n.target.join(' ')}\n      ${n.failureSummary?.split('\n').slice(0, 3).join(' | ')}`),
      ].join('\n'),
    )
    .join('\n');
}

async function scan(page: Page, label: string): Promise<string | undefined> {
  const results = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
  // An empty or half-drawn page passes nothing: make sure axe looked at a real one.
  expect(
    results.passes.map((r) => r.id),
    `${label}: rules axe checked`,
  ).toContain('color-contrast');
  if (results.violations.length === 0) return undefined;
  await saveScreenshot(page, `a11y-${label.replace(/[^a-z0-9]+/gi, '-')}`);
  return `${label}\n${describeViolations(results)}`;
}

/** Whether the page is drawn dark: the luminance of the body's background, whatever the palette. */
async function drawnDark(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const [r, g, b] = (getComputedStyle(document.body).backgroundColor.match(/\d+(\.\d+)?/g) ?? []).map(Number);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
  });
}

/**
 * How a theme is chosen (app/globals.css): the system's colour scheme, unless the theme
 * toggle set `data-theme` on <html>, a choice it keeps in a cookie. Both ways are checked:
 * the system preference with no choice made, and the toggle overriding the opposite system
 * preference.
 */
const MODES = [
  { name: 'light (system)', system: 'light', toggle: undefined, dark: false },
  { name: 'dark (system)', system: 'dark', toggle: undefined, dark: true },
  { name: 'dark (toggle over a light system)', system: 'light', toggle: 'dark', dark: true },
  { name: 'light (toggle over a dark system)', system: 'dark', toggle: 'light', dark: false },
] as const;

type Mode = (typeof MODES)[number];

/** Scans the sign-in page and every signed-in page in `mode`; returns axe's findings, one entry per page. */
async function scanEveryPage(
  page: Page,
  context: BrowserContext,
  signIn: (role: E2eRole) => Promise<AppShell>,
  mode: Mode,
): Promise<string[]> {
  const f = fixture!;
  await page.emulateMedia({ colorScheme: mode.system });
  const found: string[] = [];
  const html = page.locator('html');

  const shell = await signIn('admin');
  await awaitCompleted(page, f);
  if (mode.toggle) {
    // The toggle cycles system → light → dark and remembers the choice in a cookie.
    const toggle = page.getByTestId('theme-toggle');
    for (let i = 0; i < 3 && (await html.getAttribute('data-theme')) !== mode.toggle; i++) await toggle.click();
    await expect(html).toHaveAttribute('data-theme', mode.toggle);
    expect((await context.cookies()).find((c) => c.name === THEME_COOKIE)?.value).toBe(mode.toggle);
  }

  for (const stop of stops(f)) {
    await visit(page, stop);
    if (mode.toggle) await expect(html, 'the server renders the chosen theme').toHaveAttribute('data-theme', mode.toggle);
    expect(await drawnDark(page), `${stop.name} is drawn ${mode.dark ? 'dark' : 'light'}`).toBe(mode.dark);
    const problem = await scan(page, `${stop.name} (${stop.path}), ${mode.name}`);
    if (problem) found.push(problem);
  }

  // Signed out: the sign-in page, with the theme choice (if any) still in its cookie.
  await shell.signOut();
  await new SignInPage(page).goto('/');
  if (mode.toggle) await expect(html).toHaveAttribute('data-theme', mode.toggle);
  expect(await drawnDark(page), `sign-in is drawn ${mode.dark ? 'dark' : 'light'}`).toBe(mode.dark);
  const problem = await scan(page, `sign-in (signed out), ${mode.name}`);
  if (problem) found.push(problem);
  return found;
}

for (const mode of MODES) {
  test(`axe finds no WCAG 2.2 AA violation on any page, ${mode.name}`, async ({ page, signIn, context }) => {
    test.setTimeout(300_000);
    const found = await scanEveryPage(page, context, signIn, mode);
    expect(found, `axe violations:\n${found.join('\n\n')}`).toEqual([]);
  });
}

/** What a finger can tap, as the issue lists it. */
const TARGETS = [
  'a[href]',
  'button',
  'input:not([type="hidden"])',
  'select',
  'textarea',
  'summary',
  '[role="button"]',
  '[tabindex]:not([tabindex="-1"])',
].join(', ');

interface SmallTarget {
  what: string;
  width: number;
  height: number;
}

/**
 * Every visible interactive element smaller than 24×24 CSS px, except inline links in
 * running text. WCAG 2.2 SC 2.5.8 excepts a target in a sentence, whose height the line of
 * text around it sets. Narrowly: only an `<a>` laid out inline, inside a `<p>` or `<li>` that
 * holds words of its own outside every link and control. A link that is its block's only
 * content (a nav item, a table cell, a "Back to the overview" line) or one of a row of links
 * is a target like any other and gets no exception; so does every button, input and summary.
 */
async function smallTargets(page: Page): Promise<{ measured: number; small: SmallTarget[] }> {
  return page.locator(TARGETS).evaluateAll((elements) => {
    const MIN = 24;
    let measured = 0;
    const small: { what: string; width: number; height: number }[] = [];
    function inSentence(el: Element): boolean {
      if (el.tagName !== 'A' || getComputedStyle(el).display !== 'inline') return false;
      const block = el.parentElement?.closest('p, li');
      if (!block) return false;
      // The block's words outside every link and control: if any are left, the link sits in a
      // sentence. A paragraph that only lines links up (a row of links) is not a sentence.
      const copy = block.cloneNode(true) as Element;
      for (const target of copy.querySelectorAll('a, button, input, select, textarea, summary')) target.remove();
      return /[A-Za-z]{2,}/.test(copy.textContent ?? '');
    }
    function nameOf(el: Element): string {
      const id = el.getAttribute('data-testid');
      const text = (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
      const type = el.getAttribute('type');
      return `${el.tagName.toLowerCase()}${type ? `[type=${type}]` : ''}${id ? `[data-testid=${id}]` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''} "${text}"`;
    }
    for (const el of elements) {
      const box = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      if (box.width === 0 || box.height === 0 || style.visibility === 'hidden' || style.display === 'none') continue;
      // The skip link sits off-screen and cannot be tapped until the keyboard focuses it.
      if (box.right < 0 || box.bottom < 0) continue;
      if (el.closest('dialog:not([open])')) continue;
      measured++;
      if (box.width >= MIN && box.height >= MIN) continue;
      if (inSentence(el)) continue;
      small.push({ what: nameOf(el), width: Math.round(box.width * 10) / 10, height: Math.round(box.height * 10) / 10 });
    }
    return { measured, small };
  });
}

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  // The phone layout is another page: columns hidden, the navigation wrapped, the theme label hidden.
  for (const mode of MODES.filter((m) => !m.toggle)) {
    test(`axe finds no WCAG 2.2 AA violation on any page, ${mode.name}`, async ({ page, signIn, context }) => {
      test.setTimeout(300_000);
      const found = await scanEveryPage(page, context, signIn, mode);
      expect(found, `axe violations on a phone:\n${found.join('\n\n')}`).toEqual([]);
    });
  }

  test('every tap target on every page is at least 24×24 px', async ({ page, signIn }) => {
    test.setTimeout(240_000);
    const f = fixture!;
    const found: string[] = [];
    const record = (where: string, targets: { measured: number; small: SmallTarget[] }) => {
      // A page drawn without its controls would pass for the wrong reason.
      expect(targets.measured, `${where}: tap targets measured`).toBeGreaterThan(0);
      for (const t of targets.small) found.push(`${where}: ${t.what} is ${t.width}×${t.height}`);
    };

    const signInPage = new SignInPage(page);
    await signInPage.goto('/');
    record('sign-in', await smallTargets(page));

    await signIn('admin');
    await awaitCompleted(page, f);
    for (const stop of stops(f)) {
      await visit(page, stop);
      const targets = await smallTargets(page);
      if (targets.small.length) await saveScreenshot(page, `tap-targets-${stop.name.replace(/[^a-z0-9]+/gi, '-')}`);
      record(stop.path, targets);
    }

    expect(found, `tap targets under 24×24 px:\n${found.join('\n')}`).toEqual([]);
  });
});
