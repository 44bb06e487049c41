/**
 * Child process of the observer benchmark (forked by observer.ts): N open tabs on the
 * dashboard's live stream (GET /api/live/stream, dashboard/live/live-stream-route.ts),
 * each naming the same subjects, spread over the signed-in cookies. The events are read
 * and counted, not parsed: what is measured is the dashboard's cost of pushing them. In a
 * process of its own so the clients' work does not run on the event loop of the worker
 * being measured.
 *
 * Input: argv[2] as JSON ({ url, cookies, subjects }). IPC in: { open: n } (open n streams,
 * answered { opened } once each has its first event), 'stop' (close them all, then report).
 * IPC out: { ready: true } once up; after 'stop', the events and bytes received and the failures.
 */
import http from 'node:http';
import { z } from 'zod';

const argsSchema = z.object({
  url: z.string().url(),
  cookies: z.array(z.string().min(1)).min(1),
  subjects: z.array(z.string().startsWith('/api/live/')).min(1),
});

export interface StreamsReport {
  streams: number;
  /** `data` events received (pushed values), and every byte. */
  events: number;
  bytes: number;
  /** Streams refused or broken, with the first few reasons. */
  failures: number;
  reasons: string[];
  seconds: number;
}

async function main(): Promise<void> {
  const args = argsSchema.parse(JSON.parse(process.argv[2] ?? '{}'));
  const base = new URL(args.url);
  const path = `/api/live/stream?${args.subjects.map((s) => `s=${encodeURIComponent(s)}`).join('&')}`;
  // One socket per stream, as each tab holds its own connection.
  const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  let open: http.ClientRequest[] = [];
  let report: StreamsReport = { streams: 0, events: 0, bytes: 0, failures: 0, reasons: [], seconds: 0 };
  let startedAt = 0;
  let stopping = false;
  const fail = (reason: string) => {
    if (stopping) return;
    report.failures++;
    if (report.reasons.length < 5) report.reasons.push(reason);
  };

  const openOne = (cookie: string) =>
    new Promise<void>((resolve) => {
      const req = http.get(
        { host: base.hostname, port: base.port, path, agent, headers: { cookie, accept: 'text/event-stream' } },
        (res) => {
          if (res.statusCode !== 200) {
            fail(`the stream answered ${res.statusCode}`);
            res.resume();
            return resolve();
          }
          let first = true;
          res.on('data', (chunk: Buffer) => {
            report.bytes += chunk.length;
            // Counted by their marker: a chunk holds whole events as the hub writes them.
            let i = chunk.indexOf('event: data');
            while (i >= 0) {
              report.events++;
              i = chunk.indexOf('event: data', i + 1);
            }
            if (first) {
              first = false;
              resolve();
            }
          });
          res.on('end', () => fail('a stream ended'));
        },
      );
      req.on('error', (err) => {
        fail(err.message);
        resolve();
      });
      open.push(req);
    });

  process.on('message', async (cmd) => {
    if (typeof cmd === 'object' && cmd !== null && 'open' in cmd) {
      const n = Number((cmd as { open: number }).open);
      stopping = false;
      report = { streams: n, events: 0, bytes: 0, failures: 0, reasons: [], seconds: 0 };
      startedAt = performance.now();
      // A few at a time, as tabs open: the dashboard checks each session as the stream opens.
      for (let i = 0; i < n; i += 25) {
        await Promise.all(Array.from({ length: Math.min(25, n - i) }, (_, k) => openOne(args.cookies[(i + k) % args.cookies.length])));
      }
      process.send?.({ opened: n - report.failures });
    } else if (cmd === 'stop') {
      stopping = true;
      report.seconds = (performance.now() - startedAt) / 1_000;
      for (const req of open) req.destroy();
      open = [];
      process.send?.(report);
    }
  });
  process.on('disconnect', () => process.exit(0));
  process.send?.({ ready: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
