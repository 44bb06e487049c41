import { spawn } from 'node:child_process';
import path from 'node:path';
import { CLIENT_TOKEN_ENV } from '@/lib/http/client-header';
import { freePort } from '@/lib/redis/embedded-server';
import { expect, test } from './fixtures';

/*
 * Issue 21's low findings about requests, against the real dashboard server: a bare
 * `next start` refuses to start (docs/security.md, "Running behind a proxy").
 */
const ROOT = path.resolve(__dirname, '../..');

test('a bare `next start` refuses to start and names the supported command', async ({ e2e }) => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...e2e.env };
  delete env[CLIENT_TOKEN_ENV];
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'node_modules/next/dist/bin/next'), 'start', '-H', '127.0.0.1', '-p', String(port)],
    {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  expect(code, out).toBe(1);
  expect(out).toContain('Refusing to start: serve the dashboard with `npm run web` (or `npm start`), not a bare `next start`');
  expect((await fetch(`http://127.0.0.1:${port}/sign-in`).catch(() => undefined))?.status).toBeUndefined();
});
