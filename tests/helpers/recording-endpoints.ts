import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One arrival at a recording endpoint: which marker, and when it arrived. */
export interface Arrival {
  marker: string;
  at: number;
}

/**
 * A loopback HTTP server that plays two outside services of the worker and records what
 * reaches them, outside Redis (so a Redis failover cannot lose the record):
 * - `POST /hook`: a webhook receiver; records the delivered event's `payload.marker`;
 * - `POST /v1/embeddings`: an OpenAI-compatible embeddings API; records every input text
 *   and answers with vectors derived from a hash of each text.
 */
export interface RecordingEndpoints {
  /** The webhook URL to register. */
  hookUrl: string;
  /** The EMBEDDINGS_URL to give the worker. */
  embeddingsUrl: string;
  /** Every arrival, repeats included, in order. */
  arrivals: Arrival[];
  /** Markers seen at least once. */
  seen(): Set<string>;
  close(): Promise<void>;
}

const DIMS = 8;

function vectorOf(text: string): number[] {
  const digest = createHash('sha256').update(text).digest();
  return Array.from({ length: DIMS }, (_, i) => digest[i] / 255 - 0.5);
}

export async function startRecordingEndpoints(): Promise<RecordingEndpoints> {
  const arrivals: Arrival[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: { payload?: { marker?: unknown }; input?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const at = Date.now();
      if (req.url === '/hook') {
        arrivals.push({ marker: String(body.payload?.marker), at });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        return;
      }
      if (req.url === '/v1/embeddings') {
        const texts = Array.isArray(body.input) ? body.input.map(String) : [String(body.input)];
        for (const text of texts) arrivals.push({ marker: text, at });
        const data = texts.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text) }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
        return;
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    hookUrl: `http://127.0.0.1:${port}/hook`,
    embeddingsUrl: `http://127.0.0.1:${port}/v1`,
    arrivals,
    seen: () => new Set(arrivals.map((a) => a.marker)),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
