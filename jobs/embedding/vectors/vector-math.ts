/**
 * Pure vector arithmetic shared by the index, the clustering and the tests. Vectors are
 * Float32Array; every function takes its inputs and allocates its own output.
 */

export function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) {
    throw new Error(`Vectors of ${a.length} and ${b.length} dimensions cannot be compared`);
  }
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

export function norm(a: Float32Array): number {
  return Math.sqrt(dot(a, a));
}

/** A unit-length copy; a zero vector stays zero (it has no direction to keep). */
export function l2normalize(a: Float32Array): Float32Array {
  const n = norm(a);
  const out = new Float32Array(a.length);
  if (n === 0) return out;
  for (let i = 0; i < a.length; i++) out[i] = a[i] / n;
  return out;
}

/** Cosine similarity in [-1, 1]; 0 when either vector is zero. */
export function cosine(a: Float32Array, b: Float32Array): number {
  const na = norm(a);
  const nb = norm(b);
  if (na === 0 || nb === 0) return 0;
  return dot(a, b) / (na * nb);
}

export interface Neighbour<K> {
  key: K;
  /** Cosine similarity to the query. */
  similarity: number;
}

/**
 * Exact k-nearest neighbours by cosine similarity, by brute force over every item. The
 * reference the ANN index is measured against, and good enough for a few thousand items.
 */
export function exactNearest<K>(items: Iterable<{ key: K; vector: Float32Array }>, query: Float32Array, k: number): Array<Neighbour<K>> {
  const scored: Array<Neighbour<K>> = [];
  for (const item of items) scored.push({ key: item.key, similarity: cosine(item.vector, query) });
  scored.sort((x, y) => y.similarity - x.similarity);
  return scored.slice(0, k);
}
