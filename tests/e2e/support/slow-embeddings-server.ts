import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A batch holding a text with this marker is refused with a 400. */
export const REJECTED_TEXT = 'e2e-reject-me';

/** Dimensions of the vectors this server returns. */
const DIMS = 16;

export interface SlowEmbeddingsServer {
  /** The EMBEDDINGS_URL to give the worker (`http://127.0.0.1:<port>/v1`). */
  url: string;
  /** Requests answered so far. */
  requests(): number;
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible `POST /v1/embeddings` on loopback that takes `delayMs` per call.
 * The worker is pointed at it (EMBEDDINGS_URL, a documented setting), so an
 * `embedding-batch` job spends a known time per batch and its progress bar moves at a
 * pace a browser polling every 3 s can watch. Vectors are derived from a hash of each
 * text: stable, so a retried batch stores the same vector.
 */
export async function startSlowEmbeddingsServer(delayMs: number): Promise<SlowEmbeddingsServer> {
  let count = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/embeddings')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      let input: unknown;
      try {
        input = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input?: unknown }).input;
      } catch {
        input = undefined;
      }
      const texts = Array.isArray(input) ? input.map(String) : typeof input === 'string' ? [input] : [];
      if (texts.length === 0) {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"input must be a string or a list of strings"}');
        return;
      }
      count++;
      // A provider refuses some inputs outright: a batch holding REJECTED_TEXT gets a 400,
      // so a spec can make an embedding-batch job complete with a failed batch.
      if (texts.some((t) => t.includes(REJECTED_TEXT))) {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"input rejected"}');
        return;
      }
      setTimeout(() => {
        const data = texts.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text) }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
      }, delayMs);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function vectorOf(text: string): number[] {
  const digest = createHash('sha256').update(text).digest();
  return Array.from({ length: DIMS }, (_, i) => digest[i] / 255 - 0.5);
}
