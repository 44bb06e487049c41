import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newestSourceMtime } from '@/scripts/dashboard-build';

const dir = mkdtempSync(path.join(os.tmpdir(), 'bullpen-build-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function touch(file: string, seconds: number): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), '');
  utimesSync(path.join(dir, file), seconds, seconds);
}

describe('the dashboard build', () => {
  it('counts a change to the dashboard’s server code, beside app/, components/ and lib/', () => {
    touch('app/page.tsx', 1_000);
    touch('lib/bullpen.ts', 2_000);
    touch('dashboard/queues/queue-page.ts', 3_000);
    expect(newestSourceMtime(dir)).toBe(3_000_000);
    touch('scripts/demo.ts', 4_000);
    expect(newestSourceMtime(dir)).toBe(3_000_000);
  });

  it('counts a change to any application the dashboard bundles: the registry, jobs/ and examples/', () => {
    touch('jobs/index.ts', 5_000);
    expect(newestSourceMtime(dir)).toBe(5_000_000);
    touch('examples/mailer/app.ts', 6_000);
    expect(newestSourceMtime(dir)).toBe(6_000_000);
    touch('applications.ts', 7_000);
    expect(newestSourceMtime(dir)).toBe(7_000_000);
  });
});
