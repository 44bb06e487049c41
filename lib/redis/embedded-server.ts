import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export interface EmbeddedRedisOptions {
  port: number;
  /** Data directory; omit for a throwaway in-memory server (tests). */
  dir?: string;
  /** Extra `redis-server` arguments, e.g. `['--cluster-enabled', 'yes']`. */
  args?: string[];
  /**
   * The product's own server (not a test's): a `requirepass`, CONFIG renamed away and
   * DEBUG/MODULE off, so another local process can neither read the queues nor
   * reconfigure the server (docs/security.md).
   */
  password?: string;
  /** AOF fsync policy with `dir`. @defaultValue `everysec` */
  fsync?: 'everysec' | 'always';
  /**
   * Run it in a process group of its own. A Ctrl-C reaches the terminal's whole
   * foreground group, and redis-server exits on SIGINT: the start command's server
   * would be gone while the worker still finishes its jobs. Detached, it is stopped
   * last by `stop()`; one left behind by a killed start is reused by the next.
   * @defaultValue false
   */
  ownProcessGroup?: boolean;
}

export interface EmbeddedRedis {
  port: number;
  url: string;
  /** Set when this process started the server (and so must stop it). */
  child?: ChildProcess;
  stop(): Promise<void>;
}

/** Whether a `redis-server` binary is on the PATH. */
export function redisServerAvailable(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** A free loopback TCP port chosen by the kernel. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * `up`: a server answers with this password (or needs none); `locked`: one answers but
 * refuses it; `down`: none. Raw RESP over a socket: ioredis only says "Connection is
 * closed" when its AUTH fails, which cannot tell a locked server from no server.
 */
function probe(port: number, password?: string): Promise<'up' | 'locked' | 'down'> {
  const bulk = (s: string) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
  const request = `${password ? `*2\r\n${bulk('AUTH')}${bulk(password)}` : ''}*1\r\n${bulk('PING')}`;
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    const done = (result: 'up' | 'locked' | 'down') => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(500, () => done('down'));
    socket.on('error', () => done('down'));
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk) => {
      reply += String(chunk);
      if (/^-(NOAUTH|WRONGPASS)/m.test(reply)) done('locked');
      else if (/^\+PONG/m.test(reply)) done('up');
    });
  });
}

/** Makes the data directory 0700 and every file in it 0600 (Redis writes them with the umask). */
function lockDown(dir: string): void {
  chmodSync(dir, 0o700);
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) {
        chmodSync(p, 0o700);
        walk(p);
      } else chmodSync(p, 0o600);
    }
  };
  walk(dir);
}

/**
 * Starts a `redis-server` on loopback, or reuses one already answering on the port.
 * With `dir`, data persists there with AOF on (`appendfsync everysec` unless `fsync`
 * says `always`): a crash loses at most about a second of writes with `everysec`
 * (docs/decisions/0006-connection-roles.md).
 */
export async function startEmbeddedRedis(opts: EmbeddedRedisOptions): Promise<EmbeddedRedis> {
  const auth = opts.password ? `:${encodeURIComponent(opts.password)}@` : '';
  const url = `redis://${auth}127.0.0.1:${opts.port}`;
  const found = await probe(opts.port, opts.password);
  if (found === 'up') {
    return { port: opts.port, url, stop: async () => undefined };
  }
  if (found === 'locked') {
    throw new Error(
      `A redis-server on port ${opts.port} refuses this data directory's password; stop it or choose another BULLPEN_REDIS_PORT`,
    );
  }
  if (!redisServerAvailable()) {
    throw new Error('redis-server is not installed: run `npm start` (it installs it on Debian) or install Redis 7+, or set REDIS_URL');
  }
  const args = ['--port', String(opts.port), '--bind', '127.0.0.1', '--protected-mode', 'yes'];
  if (opts.dir) {
    mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
    lockDown(opts.dir);
    args.push(
      '--dir',
      path.resolve(opts.dir),
      '--appendonly',
      'yes',
      '--appendfsync',
      opts.fsync ?? 'everysec',
      '--save',
      '3600 1 300 100',
    );
  } else {
    args.push('--save', '', '--appendonly', 'no');
  }
  if (opts.password) {
    // CONFIG could turn persistence off or point --dir elsewhere; BullMQ reads the
    // eviction policy with INFO, not CONFIG, so nothing of ours needs it.
    args.push(
      '--requirepass',
      opts.password,
      '--rename-command',
      'CONFIG',
      '',
      '--enable-debug-command',
      'no',
      '--enable-module-command',
      'no',
    );
  }
  args.push(...(opts.args ?? []));
  // umask 077: the AOF, the RDB and every rewrite are created 0600.
  const child = spawn('sh', ['-c', 'umask 077 && exec redis-server "$@"', 'redis-server', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: opts.ownProcessGroup ?? false,
  });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += String(d)));
  const deadline = Date.now() + 10_000;
  while ((await probe(opts.port, opts.password)) !== 'up') {
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}): ${stderr.trim()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not answer on port ${opts.port} within 10 s`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port: opts.port,
    url,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        // SIGTERM makes redis-server flush the AOF and exit cleanly.
        child.kill('SIGTERM');
      }),
  };
}
