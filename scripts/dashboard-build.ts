import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The dashboard's production build, one rule for every caller (`npm start`, the e2e
 * suite, the benchmark): build when `.next/BUILD_ID` is missing or older than anything
 * under app/, components/, dashboard/, jobs/, examples/, lib/, applications.ts (the registry
 * the dashboard bundles every application from), next.config.js, proxy.ts or
 * package-lock.json, and never while another `next build` works in the same tree.
 */

/** Newest modification time under the dashboard's sources. */
export function newestSourceMtime(root: string): number {
  let newest = 0;
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  for (const dir of ['app', 'components', 'dashboard', 'jobs', 'examples', 'lib']) walk(path.join(root, dir));
  for (const file of ['applications.ts', 'next.config.js', 'proxy.ts', 'package-lock.json']) {
    const p = path.join(root, file);
    if (existsSync(p)) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** Whether `.next/BUILD_ID` exists and is newer than every source. */
export function buildIsFresh(root: string): boolean {
  const buildId = path.join(root, '.next', 'BUILD_ID');
  return existsSync(buildId) && statSync(buildId).mtimeMs > newestSourceMtime(root);
}

/**
 * PIDs of `next build` processes working in `root` (Linux /proc; elsewhere none are
 * seen). Two builds writing one `.next` corrupt each other, and a build that replaces
 * `.next` under a running `next start` breaks it, so the suite waits for one to end.
 */
export function buildsRunningIn(root: string): number[] {
  if (!existsSync('/proc')) return [];
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      const isNextBuild = cmd.some((a) => /next(\.js)?$|next\/dist\/bin\/next$/.test(a)) && cmd.includes('build');
      if (isNextBuild && path.resolve(readlinkSync(`/proc/${name}/cwd`)) === path.resolve(root)) found.push(Number(name));
    } catch {
      // The process ended while we looked, or is not ours to read.
    }
  }
  return found;
}

export interface BuildOptions {
  /** Where progress lines go. @defaultValue console.log */
  log?: (line: string) => void;
  /**
   * How long to wait for someone else's `next build` in the same tree.
   * @defaultValue 600000 (a cold build on two cores takes a few minutes)
   */
  waitForOtherBuildMs?: number;
  /** Use an existing build even when sources are newer (iterating on e2e specs, a benchmark rerun). */
  reuseStale?: boolean;
  /** Keep next build's output to return it instead of printing it. @defaultValue false */
  quiet?: boolean;
}

export interface BuildResult {
  outcome: 'fresh' | 'built' | 'stale';
  /** Seconds `next build` took, when it ran. */
  seconds?: number;
}

/** Builds the dashboard unless the build is fresh; throws when `next build` fails. */
export async function buildDashboardIfNeeded(root: string, opts: BuildOptions = {}): Promise<BuildResult> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const deadline = Date.now() + (opts.waitForOtherBuildMs ?? 600_000);
  let others = buildsRunningIn(root);
  if (others.length) log(`waiting for the running next build (pid ${others.join(', ')}) to finish...`);
  while (others.length) {
    if (Date.now() > deadline) throw new Error(`another next build (pid ${others.join(', ')}) is still running in ${root}`);
    await new Promise((r) => setTimeout(r, 2_000));
    others = buildsRunningIn(root);
  }
  if (buildIsFresh(root)) return { outcome: 'fresh' };
  if (opts.reuseStale && existsSync(path.join(root, '.next', 'BUILD_ID'))) {
    log('using the existing dashboard build although sources are newer');
    return { outcome: 'stale' };
  }
  log('building the dashboard (first start, or sources changed; a minute or two)...');
  const nextBin = path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next');
  const started = performance.now();
  const r = spawnSync(process.execPath, [nextBin, 'build'], {
    cwd: root,
    stdio: opts.quiet ? 'pipe' : 'inherit',
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  });
  if (r.status !== 0) {
    const tail = opts.quiet
      ? `\n${`${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n')}`
      : ' (see its output above)';
    throw new Error(`next build failed (exit ${r.status ?? r.signal})${tail}`);
  }
  return { outcome: 'built', seconds: (performance.now() - started) / 1_000 };
}
