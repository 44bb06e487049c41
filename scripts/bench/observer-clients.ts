/**
 * Child process of the observer benchmark (forked by observer.ts): N signed-in
 * clients, each GETting the same paths every `periodMs` the way an open tab polls
 * (the live JSON routes a tab's refetch calls), each client's first tick at a random
 * point of the first period so they do not all fire at once. In a process of its own so
 * the clients' HTTP work does not run on the event loop of the worker being measured.
 *
 * Input: argv[2] as JSON ({ url, cookies, paths, periodMs }), one client per cookie.
 * IPC in: 'start' (begin polling), 'stop' (finish the ticks in flight, then report).
 * IPC out: { ready: true } once up; after 'stop', the response times by path and the failures.
 */
import { z } from 'zod';
import { getRequest, KeepAliveConnection } from './raw-http';

const argsSchema = z.object({
  url: z.string().url(),
  cookies: z.array(z.string().min(1)).min(1),
  paths: z.array(z.string().startsWith('/')).min(1),
  periodMs: z.number().int().positive(),
});

export interface ClientsReport {
  /** Milliseconds from request to the whole body, by path. */
  samples: Record<string, number[]>;
  /** Requests answered with a status other than 200 or not answered, with the first few reasons. */
  failures: number;
  reasons: string[];
  /** Ticks that started late because the previous tick of the same client was still waiting. */
  lateTicks: number;
  /** Ticks started (each GETs every path once), and the seconds from 'start' to 'stop'. */
  ticks: number;
  seconds: number;
}

async function main(): Promise<void> {
  const args = argsSchema.parse(JSON.parse(process.argv[2] ?? '{}'));
  let running = false;
  const empty = (): ClientsReport => ({ samples: {}, failures: 0, reasons: [], lateTicks: 0, ticks: 0, seconds: 0 });
  let report = empty();
  let startedAt = 0;
  let loops: Promise<void>[] = [];

  // One keep-alive connection per client and path, as a tab keeps its connections to the
  // dashboard, each sending a request prepared once (raw-http.ts): the load generator
  // shares the machine's two cores with what it measures, and node:http's client cost
  // about as much CPU per poll as the server answering it (fetch several times more).
  // The body arrives gzipped, as a browser asks for it, and is not unpacked: what is
  // measured is the dashboard's answer, not this process's.
  const base = new URL(args.url);
  const links = new Map<string, { connection: KeepAliveConnection; request: Buffer }>();
  const request = async (cookie: string, path: string) => {
    const id = `${path}\n${cookie}`;
    let link = links.get(id);
    if (!link) {
      link = {
        connection: KeepAliveConnection.to(base),
        request: getRequest(base.host, path, { cookie, accept: 'application/json', 'accept-encoding': 'gzip' }),
      };
      links.set(id, link);
    }
    const answer = await link.connection.send(link.request);
    if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}`);
    return answer.bodyBytes;
  };

  const get = async (cookie: string, path: string) => {
    const t0 = performance.now();
    try {
      const bytes = await request(cookie, path);
      if (bytes === 0) throw new Error(`GET ${path} answered an empty body`);
      const list = report.samples[path] ?? [];
      list.push(performance.now() - t0);
      report.samples[path] = list;
    } catch (err) {
      report.failures++;
      if (report.reasons.length < 5) report.reasons.push((err as Error).message);
    }
  };

  const client = async (cookie: string) => {
    let next = performance.now() + Math.random() * args.periodMs;
    while (running) {
      const wait = next - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      else if (wait < -args.periodMs / 10) report.lateTicks++;
      if (!running) break;
      next += args.periodMs;
      report.ticks++;
      await Promise.all(args.paths.map((p) => get(cookie, p)));
    }
  };

  process.on('message', async (cmd) => {
    if (cmd === 'start' && !running) {
      running = true;
      report = empty();
      startedAt = performance.now();
      loops = args.cookies.map(client);
    } else if (cmd === 'stop') {
      running = false;
      report.seconds = (performance.now() - startedAt) / 1_000;
      await Promise.all(loops);
      process.send?.(report);
    }
  });
  // Leaves when the parent goes (its IPC channel closes), whatever the parent's state.
  process.on('disconnect', () => process.exit(0));
  process.send?.({ ready: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
