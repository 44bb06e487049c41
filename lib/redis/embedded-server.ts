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
 * What answers on a port: `up`, a server that takes this password (or, without one, needs
 * none); `loading`, the same still loading its data (its clients' ready check waits);
 * `locked`, a server that refuses the password; `open`, one that answers without a
 * password although we have one; `foreign`, something that does not answer as
 * redis-server does; `down`, nothing within 500 ms.
 */
type Probe = 'up' | 'loading' | 'locked' | 'open' | 'foreign' | 'down';

/**
 * Asks the server on `port` who it is, in raw RESP over a socket (ioredis only says
 * "Connection is closed" when its AUTH fails, which cannot tell a locked server from no
 * server). With a password, a PING goes first, without it: the password is sent only to a
 * server that answers NOAUTH, so a password-less listener squatting the port (which
 * accepts anything) never receives it (docs/security.md, "The embedded Redis").
 */
function probe(port: number, password?: string): Promise<Probe> {
  const bulk = (s: string) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
  const ping = `*1\r\n${bulk('PING')}`;
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    let authSent = false;
    const done = (result: Probe) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(500, () => done('down'));
    socket.on('error', () => done('down'));
    socket.on('connect', () => socket.write(ping));
    socket.on('data', (chunk) => {
      reply += String(chunk);
      if (!authSent) {
        if (!reply.includes('\r\n')) return;
        // Redis checks authentication before anything else: an answer other than NOAUTH
        // (PONG, or LOADING) comes from a server that needs no password.
        const answer = reply.startsWith('+PONG\r\n') ? 'up' : reply.startsWith('-LOADING') ? 'loading' : undefined;
        if (answer) return done(password ? 'open' : answer);
        if (!reply.startsWith('-NOAUTH')) return done('foreign');
        if (!password) return done('locked');
        authSent = true;
        reply = '';
        socket.write(`*2\r\n${bulk('AUTH')}${bulk(password)}${ping}`);
        return;
      }
      // Complete lines only: the AUTH's answer, then the PING's.
      const [auth, pong] = reply.split('\r\n').slice(0, -1);
      if (auth === undefined) return;
      if (auth.startsWith('-')) return done('locked');
      if (auth !== '+OK') return done('foreign');
      if (pong === undefined) return;
      done(pong === '+PONG' ? 'up' : pong.startsWith('-LOADING') ? 'loading' : 'foreign');
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
  if (found === 'up' || found === 'loading') {
    return { port: opts.port, url, stop: async () => undefined };
  }
  if (found === 'locked') {
    throw new Error(
      `A redis-server on port ${opts.port} refuses this data directory's password; stop it or choose another BULLPEN_REDIS_PORT`,
    );
  }
  if (found === 'open') {
    throw new Error(
      `The server on port ${opts.port} answers without a password, so it is not this data directory's redis-server ` +
        '(which demands one); it was not sent the password. Stop it or choose another BULLPEN_REDIS_PORT',
    );
  }
  if (found === 'foreign') {
    throw new Error(
      `Port ${opts.port} is held by something that does not answer as redis-server does; stop it or choose another BULLPEN_REDIS_PORT`,
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
