import path from 'node:path';
import type { FullConfig } from '@playwright/test';
import { STATE_ENV } from './support/e2e-state';
import { E2eStack } from './support/stack';

/**
 * Starts the product for the whole run (support/stack.ts) and hands its state file to
 * the test processes through BULLPEN_E2E_STATE. The returned function is Playwright's
 * global teardown: it stops, by PID, every process the setup started, and Redis.
 */
export default async function globalSetup(_config: FullConfig): Promise<() => Promise<void>> {
  const started = Date.now();
  const stack = await E2eStack.start({ root: path.resolve(__dirname, '../..') });
  process.env[STATE_ENV] = stack.stateFile;
  console.log(`e2e: product started in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return async () => {
    await stack.stop();
    console.log('e2e: dashboard, worker and redis-server stopped');
  };
}
