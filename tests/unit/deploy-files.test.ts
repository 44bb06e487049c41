import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '@/lib/config';

const root = path.resolve(__dirname, '../..');
const read = (f: string) => readFileSync(path.join(root, f), 'utf8');
const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

/** `KEY=value` settings of a unit file, every occurrence. */
function unitValues(text: string, key: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${key}=`))
    .map((l) => l.slice(key.length + 1));
}

describe('the deploy files say what the code does', () => {
  it('the systemd units run the package scripts themselves, without npm between systemd and the process', () => {
    const worker = read('deploy/systemd/bullpen-worker@.service');
    const dashboard = read('deploy/systemd/bullpen-dashboard@.service');
    expect(unitValues(worker, 'ExecStart')).toEqual([`/usr/bin/${scripts.worker}`]);
    // `npm run web` sets NEXT_TELEMETRY_DISABLED on its command line; the unit sets it as Environment=.
    const [env, ...web] = scripts.web.split(' ');
    expect(unitValues(dashboard, 'ExecStart')).toEqual([`/usr/bin/${web.join(' ')}`]);
    expect(unitValues(dashboard, 'Environment')).toContain(env);
  });

  it("a worker unit's stop timeout outlasts the default grace period, so systemd never kills a finishing worker", () => {
    const worker = read('deploy/systemd/bullpen-worker@.service');
    const [timeout] = unitValues(worker, 'TimeoutStopSec').map(Number);
    expect(timeout * 1000).toBeGreaterThan(loadConfig({}).SHUTDOWN_GRACE_MS);
    expect(unitValues(worker, 'KillSignal')).toEqual(['SIGTERM']);
  });

  it('the nginx config appends X-Forwarded-For, sets the scheme, and passes nginx -t', () => {
    const conf = read('deploy/nginx/bullpen.conf');
    expect(conf).toContain('proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;');
    expect(conf).toContain('proxy_set_header X-Forwarded-Proto $scheme;');
    const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-nginx-'));
    try {
      const main = path.join(dir, 'nginx.conf');
      writeFileSync(
        main,
        `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n  access_log off;\n  include ${path.join(root, 'deploy/nginx/bullpen.conf')};\n}\n`,
      );
      const r = spawnSync('nginx', ['-t', '-q', '-p', dir, '-c', main], { encoding: 'utf8' });
      if (r.error) throw new Error(`nginx is not installed: run \`bash scripts/system-deps.sh test\` (${r.error.message})`);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
