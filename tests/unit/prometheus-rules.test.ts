import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = path.resolve(import.meta.dirname, '../../deploy/prometheus');

/** Runs Debian's promtool; a missing binary fails the test with how to install it (nothing is skipped). */
function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd: dir, encoding: 'utf8', timeout: 30_000 });
  if (run.error && (run.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new Error('promtool is not installed: run `bash scripts/system-deps.sh test` (Debian package prometheus)');
  }
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('deploy/prometheus', () => {
  it('alerts.yml passes `promtool check rules`', () => {
    const { status, output } = promtool('check', 'rules', 'alerts.yml');
    expect(output).toMatch(/SUCCESS: 7 rules found/);
    expect(status, output).toBe(0);
  });

  it('alerts.test.yml passes `promtool test rules`: each rule fires on its input series and stays quiet otherwise', () => {
    const { status, output } = promtool('test', 'rules', 'alerts.test.yml');
    expect(status, output).toBe(0);
    expect(output).toMatch(/SUCCESS/);
  });

  it('prometheus.yml passes `promtool check config` (its rule file included)', () => {
    // The token files are the operator's; check the syntax, not their presence.
    const { status, output } = promtool('check', 'config', '--syntax-only', 'prometheus.yml');
    expect(status, output).toBe(0);
  });
});
