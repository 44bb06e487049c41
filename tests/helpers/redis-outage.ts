import { afterAll, afterEach, beforeAll } from 'vitest';
import { freePort, startEmbeddedRedis, type EmbeddedRedis } from '@/lib/redis/embedded-server';

/** A redis-server a test can kill, restart on the same port, hang (SIGSTOP) and resume. */
export interface OutageRedis {
  readonly port: number;
  readonly url: string;
  /** SIGKILL: the port refuses connections until `restart`. */
  kill(): Promise<void>;
  /** A new server on the same port (an empty one: no data dir). */
  restart(): Promise<void>;
  /** SIGSTOP: the socket stays open and answers nothing, as a hung server does. */
  hang(): void;
  /** SIGCONT: the server runs whatever sat in its sockets. */
  resume(): void;
}

/**
 * One redis-server per test file on a fixed ephemeral port, for outage drills. After
 * each test it is resumed (a SIGSTOPped server is never left behind) and restarted
 * when a test killed it; it is stopped after the file.
 */
export function useOutageRedis(): OutageRedis {
  let port = 0;
  let server: EmbeddedRedis | undefined;
  let hung = false;
  const child = () => {
    if (!server?.child) throw new Error('useOutageRedis: no server started by this test file');
    return server.child;
  };
  const r: OutageRedis = {
    get port() {
      return port;
    },
    get url() {
      return `redis://127.0.0.1:${port}`;
    },
    async kill() {
      const c = child();
      if (c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise((resolve) => c.once('exit', resolve));
      c.kill('SIGKILL');
      hung = false;
      await exited;
    },
    async restart() {
      server = await startEmbeddedRedis({ port });
    },
    hang() {
      child().kill('SIGSTOP');
      hung = true;
    },
    resume() {
      if (!hung) return;
      child().kill('SIGCONT');
      hung = false;
    },
  };
  beforeAll(async () => {
    port = await freePort();
    server = await startEmbeddedRedis({ port });
  });
  afterEach(async () => {
    r.resume();
    const c = server?.child;
    if (c && (c.exitCode !== null || c.signalCode !== null)) await r.restart();
  });
  afterAll(async () => {
    r.resume();
    await server?.stop();
  });
  return r;
}
