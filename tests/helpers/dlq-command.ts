import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `npm run dlq`'s node options, launcher and entry, read from package.json: what an operator
 * runs, spawned with `process.execPath` without npm's own process (npx adds seconds per call
 * on a busy machine). Arguments go after it.
 */
export const DLQ_COMMAND: readonly string[] = (() => {
  const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { scripts: Record<string, string> };
  const [node, ...args] = pkg.scripts.dlq.split(' ');
  if (node !== 'node') throw new Error(`npm run dlq no longer starts node: ${pkg.scripts.dlq}`);
  return args;
})();

/** What one run of the DLQ command printed, and how it exited. */
export interface DlqRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `npm run dlq -- <args>` against a test's Redis and key prefix, from the repository root,
 * on the application `target.app` names in BULLPEN_APP (applications.ts; the shipped one unless told).
 */
export function runDlq(target: { redisPort: number; prefix: string; app?: string }, args: readonly string[]): Promise<DlqRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...DLQ_COMMAND, ...args], {
      cwd: path.resolve(__dirname, '../..'),
      env: {
        ...process.env,
        REDIS_URL: `redis://127.0.0.1:${target.redisPort}`,
        REDIS_CLUSTER_NODES: '',
        BULLPEN_PREFIX: target.prefix,
        LOG_LEVEL: 'silent',
        ...(target.app ? { BULLPEN_APP: target.app } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
