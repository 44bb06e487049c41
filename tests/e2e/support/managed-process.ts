import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import path from 'node:path';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ManagedProcessOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** stdout and stderr are appended here, so a failed run can be diagnosed afterwards. */
  logFile: string;
}

/**
 * A child of the e2e run (the worker, a dashboard, nginx) started without a shell or npm
 * wrapper, so `pid` is the process itself and a signal reaches it directly.
 */
export class ManagedProcess {
  readonly pid: number;
  /** Resolves when the process has exited. */
  readonly exited: Promise<ExitInfo>;
  private exit: ExitInfo | undefined;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
    readonly logFile: string,
  ) {
    if (child.pid === undefined) throw new Error(`${name} did not start`);
    this.pid = child.pid;
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      }),
    );
  }

  static start(name: string, args: string[], opts: ManagedProcessOptions): ManagedProcess {
    return ManagedProcess.spawn(name, process.execPath, args, opts);
  }

  /** Any program (nginx, say), run the same way: no shell, so `pid` is the program itself. */
  static spawn(name: string, command: string, args: string[], opts: ManagedProcessOptions): ManagedProcess {
    const log = createWriteStream(opts.logFile, { flags: 'a' });
    log.write(`\n--- ${new Date().toISOString()} start ${name}: ${path.basename(command)} ${args.join(' ')}\n`);
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.pipe(log, { end: false });
    child.stderr!.pipe(log, { end: false });
    child.once('exit', (code, signal) => log.end(`--- ${name} exited (${signal ?? code})\n`));
    return new ManagedProcess(name, child, opts.logFile);
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /**
   * Sends `signal` to the PID and waits for the exit. If it has not exited after
   * `timeoutMs` it is SIGKILLed, so teardown never leaves a process behind.
   */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 45_000): Promise<ExitInfo> {
    if (this.exit) return this.exit;
    process.kill(this.pid, signal);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const first = await Promise.race([this.exited, timedOut]);
    clearTimeout(timer);
    if (first !== 'timeout') return first;
    if (this.running) process.kill(this.pid, 'SIGKILL');
    return this.exited;
  }

  /** The last `lines` lines of the log, for error messages. */
  tail(lines = 40): string {
    try {
      return readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }
}

/**
 * Polls `url` until `ready(status)` says yes; fails at once when `proc` exits first,
 * with the end of its log in the message.
 */
export async function waitForHttp(
  url: string,
  opts: { proc: ManagedProcess; timeoutMs: number; ready?: (status: number) => boolean },
): Promise<void> {
  const ready = opts.ready ?? (() => true);
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    if (!opts.proc.running) throw new Error(`${opts.proc.name} exited before ${url} answered:\n${opts.proc.tail()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5_000), redirect: 'manual' });
      await res.arrayBuffer();
      if (ready(res.status)) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${opts.timeoutMs} ms:\n${opts.proc.tail()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
