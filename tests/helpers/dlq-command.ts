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
