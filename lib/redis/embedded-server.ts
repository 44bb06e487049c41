import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Redis } from 'ioredis';

export interface EmbeddedRedisOptions {
  port: number;
  /** Data directory; omit for a throwaway in-memory server (tests). */
  dir?: string;
  /** Extra `redis-server` arguments, e.g. `['--cluster-enabled', 'yes']`. */
  args?: string[];
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

async function ping(port: number): Promise<boolean> {
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * Starts a `redis-server` on loopback, or reuses one already answering on the port.
 * With `dir`, data persists there with AOF on (`appendfsync everysec`): a crash loses
 * at most a second of writes, which the design accepts for the embedded default.
 */
export async function startEmbeddedRedis(opts: EmbeddedRedisOptions): Promise<EmbeddedRedis> {
  const url = `redis://127.0.0.1:${opts.port}`;
  if (await ping(opts.port)) {
    return { port: opts.port, url, stop: async () => undefined };
  }
  if (!redisServerAvailable()) {
    throw new Error('redis-server is not installed: run `npm run setup` (Debian) or install Redis 7+, or set REDIS_URL');
  }
  const args = ['--port', String(opts.port), '--bind', '127.0.0.1', '--protected-mode', 'yes'];
  if (opts.dir) {
    mkdirSync(opts.dir, { recursive: true });
    args.push('--dir', path.resolve(opts.dir), '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '3600 1 300 100');
  } else {
    args.push('--save', '', '--appendonly', 'no');
  }
  args.push(...(opts.args ?? []));
  const child = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += String(d)));
  const deadline = Date.now() + 10_000;
  while (!(await ping(opts.port))) {
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
