import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExitInfo } from './managed-process';

/** What the control endpoint can do to the worker process. */
export interface WorkerSupervisor {
  /** SIGTERM, then the exit (the worker finishes running jobs first). */
  stopWorker(): Promise<ExitInfo>;
  /** A new worker process; resolves when it serves its metrics port (it is then consuming). */
  startWorker(): Promise<{ pid: number }>;
  workerStatus(): { pid: number | null; running: boolean };
}

/** What the control endpoint can do to the run's redis-server: an outage on demand, and its end. */
export interface RedisSupervisor {
  /** SIGSTOP: the server keeps its sockets and answers nothing (a hung Redis). */
  pauseRedis(): { pid: number };
  /** SIGCONT after pauseRedis. */
  resumeRedis(): { pid: number };
  /** SIGKILL, then the exit: the connections close at once. */
  killRedis(): Promise<{ pid: number }>;
  /** A new redis-server on the same port and data directory (the AOF brings the data back); resolves once it answers. */
  startRedis(): Promise<{ pid: number }>;
  redisStatus(): { pid: number | null; running: boolean; paused: boolean };
}

export interface ControlServer {
  url: string;
  close(): Promise<void>;
}

/**
 * A loopback HTTP endpoint in the Playwright runner process, where global setup keeps
 * the worker and the redis-server as its children. Tests run in other processes; they stop and start the
 * worker through it (`POST /worker/stop`, `POST /worker/start`, `GET /worker`) and get
 * the real exit code back, which only the parent can see; and they hang, kill and restart
 * Redis (`POST /redis/pause|resume|kill|start`, `GET /redis`) for the outage specs.
 */
export async function startControlServer(supervisor: WorkerSupervisor & RedisSupervisor): Promise<ControlServer> {
  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const route = `${req.method} ${req.url}`;
    const run = async () => {
      if (route === 'GET /worker') return reply(200, supervisor.workerStatus());
      if (route === 'POST /worker/stop') return reply(200, await supervisor.stopWorker());
      if (route === 'POST /worker/start') return reply(200, await supervisor.startWorker());
      if (route === 'GET /redis') return reply(200, supervisor.redisStatus());
      if (route === 'POST /redis/pause') return reply(200, supervisor.pauseRedis());
      if (route === 'POST /redis/resume') return reply(200, supervisor.resumeRedis());
      if (route === 'POST /redis/kill') return reply(200, await supervisor.killRedis());
      if (route === 'POST /redis/start') return reply(200, await supervisor.startRedis());
      return reply(404, { error: `no route ${route}` });
    };
    req.resume();
    req.on('end', () => run().catch((err: unknown) => reply(500, { error: err instanceof Error ? err.message : String(err) })));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
