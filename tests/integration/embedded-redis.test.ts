import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@/lib/config';
import { createRedis, redisTarget } from '@/lib/redis/connection';
import { embeddedPasswordFile, embeddedRedisPassword } from '@/lib/redis/embedded-password';
import { freePort, startEmbeddedRedis, type EmbeddedRedis } from '@/lib/redis/embedded-server';

/*
 * The product's own redis-server (npm start): a password only Bullpen's processes read,
 * no CONFIG or DEBUG, and data files only its user can read (docs/security.md).
 */
let dataDir: string;
let port: number;
let server: EmbeddedRedis;
let password: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'bullpen-embedded-'));
  port = await freePort();
  password = embeddedRedisPassword(dataDir, true) as string;
  server = await startEmbeddedRedis({ port, dir: path.join(dataDir, 'redis'), password });
});
afterAll(async () => {
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

function client(pw?: string): Redis {
  const c = new Redis({ host: '127.0.0.1', port, password: pw, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  c.on('error', () => undefined);
  return c;
}

describe('the embedded redis-server', () => {
  it('generates one password, 0600, and reuses it', async () => {
    expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(embeddedRedisPassword(dataDir, true)).toBe(password);
    expect((await stat(embeddedPasswordFile(dataDir))).mode & 0o777).toBe(0o600);
  });

  it('refuses a client without the password', async () => {
    const anon = new Redis({ host: '127.0.0.1', port, enableReadyCheck: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    anon.on('error', () => undefined);
    await expect(anon.get('x')).rejects.toThrow(/NOAUTH/);
    await expect(anon.call('CONFIG', 'SET', 'dir', '/tmp')).rejects.toThrow(/unknown command/);
    anon.disconnect();
  });

  it('refuses CONFIG and DEBUG even with the password', async () => {
    const c = client(password);
    await c.connect();
    await expect(c.call('CONFIG', 'SET', 'dir', '/tmp')).rejects.toThrow(/unknown command/i);
    await expect(c.call('CONFIG', 'GET', 'dir')).rejects.toThrow(/unknown command/i);
    await expect(c.call('DEBUG', 'SLEEP', '0')).rejects.toThrow(/not allowed/i);
    c.disconnect();
  });

  it('Bullpen’s own clients find the password through the configuration', async () => {
    const config = loadConfig({ BULLPEN_DATA_DIR: dataDir, BULLPEN_REDIS_PORT: String(port) });
    const target = redisTarget(config);
    expect(target.password).toBe(password);
    const c = createRedis(target, 'worker');
    expect(await c.ping()).toBe('PONG');
    c.disconnect();
  });

  it('keeps the data directory 0700 and its files 0600', async () => {
    const c = client(password);
    await c.connect();
    await c.set('k', 'v');
    await c.bgrewriteaof();
    await new Promise((r) => setTimeout(r, 500));
    c.disconnect();
    const dir = path.join(dataDir, 'redis');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const files: string[] = [];
    const walk = async (d: string) => {
      for (const e of await readdir(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) await walk(p);
        else files.push(p);
      }
    };
    await walk(dir);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect({ f, mode: ((await stat(f)).mode & 0o777).toString(8) }).toEqual({ f, mode: '600' });
  });

  it('a second start on the same port with the same password reuses the server; another password is refused', async () => {
    const again = await startEmbeddedRedis({ port, dir: path.join(dataDir, 'redis'), password });
    expect(again.child).toBeUndefined();
    await expect(startEmbeddedRedis({ port, password: 'not-the-password' })).rejects.toThrow(/refuses this data directory's password/);
  });
});

describe('reusing a server found on the port', () => {
  /** A listener that answers every line with `answer` and records what it was sent. */
  async function squatter(answer: string): Promise<{ port: number; received: () => string; close: () => Promise<void> }> {
    let received = '';
    const sockets = new Set<net.Socket>();
    const srv = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('data', (chunk) => {
        received += String(chunk);
        socket.write(answer);
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    return {
      port: (srv.address() as net.AddressInfo).port,
      received: () => received,
      close: () =>
        new Promise<void>((r) => {
          for (const s of sockets) s.destroy();
          srv.close(() => r());
        }),
    };
  }

  it('never sends the password to a listener that answers without one, and refuses to reuse it', async () => {
    const fake = await squatter('+PONG\r\n');
    try {
      await expect(startEmbeddedRedis({ port: fake.port, password })).rejects.toThrow(
        /answers without a password, so it is not this data directory's redis-server .*it was not sent the password/,
      );
      expect(fake.received()).toContain('PING');
      expect(fake.received()).not.toContain(password);
      expect(fake.received()).not.toMatch(/AUTH/i);
    } finally {
      await fake.close();
    }
  });

  it('refuses a password-less redis-server on the port without sending it AUTH', async () => {
    const openPort = await freePort();
    const open = await startEmbeddedRedis({ port: openPort });
    const c = new Redis({ host: '127.0.0.1', port: openPort, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      await expect(startEmbeddedRedis({ port: openPort, password })).rejects.toThrow(/answers without a password/);
      await c.connect();
      expect(await c.info('commandstats')).not.toMatch(/cmdstat_auth:/);
    } finally {
      c.disconnect();
      await open.stop();
    }
  });

  it('refuses a port held by something that does not speak Redis', async () => {
    const fake = await squatter('HTTP/1.1 400 Bad Request\r\n\r\n');
    try {
      await expect(startEmbeddedRedis({ port: fake.port, password })).rejects.toThrow(/does not answer as redis-server does/);
      expect(fake.received()).not.toContain(password);
    } finally {
      await fake.close();
    }
  });
});
