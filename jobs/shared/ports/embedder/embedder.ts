/**
 * Turns texts into vectors. Two implementations ship: an OpenAI-compatible HTTP adapter
 * (when EMBEDDINGS_URL is set) and a local lexical one, so Bullpen runs with no account.
 */
export interface Embedder {
  /**
   * The model's identity, stored with every vector. Vectors of different models live in
   * different spaces and are never compared; a reindex replaces them.
   */
  readonly model: string;
  /** Most texts one `embed` call accepts; callers chunk to this. */
  readonly maxBatchSize: number;
  /** One unit-length vector per text, in order. All vectors of one model share a length. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** Texts per embedder call, as the background-workers requirements (docs/requirements.md#background-workers) fixes it. */
export const EMBEDDING_BATCH_SIZE = 32;

/** Splits `items` into consecutive chunks of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new Error(`chunk size must be a positive integer, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Embeds any number of texts, `embedder.maxBatchSize` (at most 32) per call, in order. */
export async function embedAll(embedder: Embedder, texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (const batch of chunk(texts, Math.min(EMBEDDING_BATCH_SIZE, embedder.maxBatchSize))) {
    signal?.throwIfAborted();
    out.push(...(await embedder.embed(batch, signal)));
  }
  return out;
}
