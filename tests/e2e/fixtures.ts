import path from 'node:path';
import { test as base, expect, type BrowserContext, type Page } from '@playwright/test';
import { shippedApp } from '@/jobs/shipped-app';
import { type Bullpen, createBullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { silentLogger } from '@/lib/logging/logger';
import { AppShell } from './pages/app-shell';
import { SignInPage } from './pages/sign-in-page';
import { readE2eState, type E2eRole, type E2eState } from './support/e2e-state';
import { RedisControl } from './support/redis-control';
import { waitForStreamedContentOnLoad } from './support/streamed-reveals';
import { WorkerControl } from './support/worker-control';

const SCREENSHOT_DIR = path.join(__dirname, 'screenshots');

/** Saves the page as tests/e2e/screenshots/<name>.png (git-ignored), the record each spec leaves. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** Signs `page` in as `role` through the sign-in form and waits for `landing` (default the overview). */
export async function signInAs(page: Page, state: E2eState, role: E2eRole, landing = '/'): Promise<AppShell> {
  const { username, password } = state.users[role];
  const signIn = new SignInPage(page);
  await signIn.goto(landing);
  await signIn.submitCredentials(username, password);
  await expect(page).toHaveURL((url) => url.pathname === landing.split('?')[0]);
  const shell = new AppShell(page);
  await expect(shell.currentUser).toContainText(username);
  return shell;
}

interface TestFixtures {
  /** Signs the test's page in as `role`, landing on `path`. */
  signIn(role: E2eRole, path?: string): Promise<AppShell>;
  /** A second, separate browser context signed in as `role` (e.g. a viewer beside an operator). */
  contextAs(role: E2eRole, path?: string): Promise<{ context: BrowserContext; page: Page }>;
}

interface WorkerFixtures {
  e2e: E2eState;
  /** lib/ on the run's Redis under its prefix: dispatch jobs, read queues and dead letters. */
  bullpen: Bullpen;
  /** Stops and starts the worker process (SIGTERM → exit code; start → ready). */
  workerProcess: WorkerControl;
  /** Hangs, kills and restarts the run's redis-server (the outage specs); left up for the next spec whatever happens. */
  redisProcess: RedisControl;
  /** Every page's goto and reload wait for React's streamed content to be in place (support/streamed-reveals.ts). */
  streamedReveals: undefined;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  e2e: [async ({}, use) => use(readE2eState()), { scope: 'worker' }],
  bullpen: [
    async ({ e2e }, use) => {
      const bullpen = createBullpen({
        ...shippedApp,
        config: loadConfig(e2e.env),
        logger: silentLogger,
      });
      await use(bullpen);
      await bullpen.close();
    },
    { scope: 'worker' },
  ],
  workerProcess: [
    async ({ e2e }, use) => {
      const control = new WorkerControl(e2e.controlUrl);
      await use(control);
      // A spec that failed half-way through a restart must not leave the next one without a worker.
      await control.ensureRunning();
    },
    { scope: 'worker' },
  ],
  redisProcess: [
    async ({ e2e, bullpen }, use) => {
      const control = new RedisControl(e2e.controlUrl);
      await use(control);
      await control.ensureUp();
      // The worker's later specs share this fail-fast client: it must be back too, not
      // still waiting out ioredis's reconnect backoff.
      await bullpen.ready(20_000);
    },
    { scope: 'worker' },
  ],
  streamedReveals: [
    async ({ browser }, use) => {
      // Pages share one class: a page of a throwaway context reaches it before any spec opens its own.
      const context = await browser.newContext();
      waitForStreamedContentOnLoad(await context.newPage());
      await context.close();
      await use(undefined);
    },
    { scope: 'worker', auto: true },
  ],
  baseURL: async ({ e2e }, use) => use(e2e.baseURL),
  signIn: async ({ page, e2e }, use) => {
    await use((role, landing) => signInAs(page, e2e, role, landing));
  },
  contextAs: async ({ browser, e2e }, use) => {
    const opened: BrowserContext[] = [];
    await use(async (role, landing) => {
      const context = await browser.newContext({ baseURL: e2e.baseURL });
      opened.push(context);
      const page = await context.newPage();
      await signInAs(page, e2e, role, landing);
      return { context, page };
    });
    for (const c of opened) await c.close();
  },
});

export { expect };
