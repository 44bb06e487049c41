import { defineConfig, devices } from '@playwright/test';

const CI = Boolean(process.env.CI);

/**
 * The whole run's bound in minutes: 30, or E2E_GLOBAL_TIMEOUT_MIN. `npm run test:stress` sets 90:
 * beside two busy loops the suite takes about twice its 23 minutes.
 */
function globalTimeoutMinutes(): number {
  const raw = process.env.E2E_GLOBAL_TIMEOUT_MIN;
  if (raw === undefined || raw === '') return 30;
  const minutes = Number(raw);
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > 240) {
    throw new Error(`E2E_GLOBAL_TIMEOUT_MIN must be a whole number of minutes from 1 to 240, got "${raw}"`);
  }
  return minutes;
}

/**
 * End-to-end tests in Debian's Chromium (`apt-get install chromium`; Playwright's own
 * browsers are not downloaded) against the dashboard and worker that
 * tests/e2e/global-setup.ts starts on free loopback ports. See docs/testing.md.
 */
export default defineConfig({
  testDir: 'tests/e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './tests/e2e/global-setup.ts',
  // One product instance and two shared cores: the specs run one after another.
  workers: 1,
  fullyParallel: false,
  // A flake is a failure to see and fix, not to hide behind a second try (issue 27):
  // `npm run test:stress` shows the ones load brings out.
  retries: 0,
  forbidOnly: CI,
  // Generous: jobs run for seconds, the live views poll every 3 s, a worker restart waits for its jobs.
  timeout: 120_000,
  expect: { timeout: 20_000 },
  // The whole run, including a cold `next build` in global setup.
  globalTimeout: globalTimeoutMinutes() * 60_000,
  reporter: [['list'], ['html', { outputFolder: 'playwright-report', open: 'never' }]],
  outputDir: 'test-results',
  use: {
    ...devices['Desktop Chrome'],
    // baseURL comes from the running stack: see the baseURL fixture in tests/e2e/fixtures.ts.
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    video: 'off',
    actionTimeout: 15_000,
    navigationTimeout: 30_000,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  projects: [{ name: 'chromium' }],
});
