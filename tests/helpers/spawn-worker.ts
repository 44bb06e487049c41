import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export interface SpawnedWorker {
  child: ChildProcess;
  /** Resolves when the worker printed "ready". */
  ready: Promise<void>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  output: () => string;
}

/**
 * Starts a fixture as its own node process (not via npx, so `child.pid` is the worker
 * itself and a SIGKILL reaches it, not a wrapper).
 */
export function spawnFixture(fixture: string, env: Record<string, string>): SpawnedWorker {
  return spawnScript(path.join('tests/fixtures', fixture), env);
}

/** Starts a script of the repository (a path from its root) as its own node process; ready once it prints `readyMarker`. */
export function spawnScript(script: string, env: Record<string, string>, readyMarker = 'ready'): SpawnedWorker {
  const root = path.resolve(__dirname, '../..');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, script)], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let resolveReady!: () => void;
  let rejectReady!: (e: Error) => void;
  const ready = new Promise<void>((res, rej) => {
    resolveReady = res;
    rejectReady = rej;
  });
  child.stdout!.on('data', (d) => {
    out += String(d);
    if (out.includes(readyMarker)) resolveReady();
  });
  child.stderr!.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      rejectReady(new Error(`${script} exited (${code}) before ready:\n${out}`));
      resolve(code);
    }),
  );
  return { child, ready, exited, output: () => out };
}
