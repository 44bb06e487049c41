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

export interface ControlServer {
  url: string;
  close(): Promise<void>;
}

/**
 * A loopback HTTP endpoint in the Playwright runner process, where global setup keeps
 * the worker as its child. Tests run in other processes; they stop and start the
 * worker through it (`POST /worker/stop`, `POST /worker/start`, `GET /worker`) and get
 * the real exit code back, which only the parent can see.
 */
export async function startControlServer(supervisor: WorkerSupervisor): Promise<ControlServer> {
  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const route = `${req.method} ${req.url}`;
    const run = async () => {
      if (route === 'GET /worker') return reply(200, supervisor.workerStatus());
      if (route === 'POST /worker/stop') return reply(200, await supervisor.stopWorker());
      if (route === 'POST /worker/start') return reply(200, await supervisor.startWorker());
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
