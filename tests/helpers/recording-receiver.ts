import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One arrival at the receiver: which marker, and when it arrived. */
export interface Arrival {
  marker: string;
  at: number;
}

/**
 * A loopback HTTP receiver that records each `POST {"marker": …}` outside Redis, so a
 * Redis failover cannot lose the record: what a worker's handlers report each run to
 * (tests/fixtures/recording-worker.ts).
 */
export interface RecordingReceiver {
  /** The URL the handlers POST to (the worker's SINK_URL). */
  url: string;
  /** Every arrival, repeats included, in order. */
  arrivals: Arrival[];
  /** Markers seen at least once. */
  seen(): Set<string>;
  close(): Promise<void>;
}

export async function startRecordingReceiver(): Promise<RecordingReceiver> {
  const arrivals: Arrival[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let marker: unknown;
      try {
        marker = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { marker?: unknown }).marker;
      } catch {
        marker = undefined;
      }
      if (req.method !== 'POST' || typeof marker !== 'string' || marker === '') {
        res.writeHead(400).end();
        return;
      }
      arrivals.push({ marker, at: Date.now() });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/record`,
    arrivals,
    seen: () => new Set(arrivals.map((a) => a.marker)),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
