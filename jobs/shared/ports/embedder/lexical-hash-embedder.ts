import { fnv1a32 } from '../../hash';
import { l2normalize } from '../../../embedding/vectors/vector-math';
import type { Embedder } from './embedder';

export interface LexicalHashEmbedderOptions {
  /**
   * Length of every vector. More dimensions mean fewer hash collisions between features.
   * @defaultValue 256
   */
  dimensions?: number;
}

/** Feature weights: whole words count most, word pairs keep some order, trigrams catch word forms. */
const WEIGHT = { word: 1, bigram: 0.7, trigram: 0.3 } as const;

/** Lower-cased words of letters and digits (any script), accents folded. */
export function tokenize(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/**
 * `lexical-hash-v1`: a local, deterministic embedder with no model and no network.
 * Word unigrams, word bigrams and character trigrams are hashed into a fixed number of
 * dimensions with a sign bit (the "hashing trick"), then L2-normalised.
 *
 * It is lexical, not semantic: two texts are similar when they share words or word
 * pieces, so "car" and "automobile" are unrelated to it. It is good for near-duplicate
 * detection and for running everything offline; set EMBEDDINGS_URL for meaning.
 */
export class LexicalHashEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  readonly maxBatchSize = 32;

  constructor(opts: LexicalHashEmbedderOptions = {}) {
    this.dimensions = opts.dimensions ?? 256;
    if (!Number.isInteger(this.dimensions) || this.dimensions < 8 || this.dimensions > 8192) {
      throw new Error(`dimensions must be an integer from 8 to 8192, got ${opts.dimensions}`);
    }
    this.model = this.dimensions === 256 ? 'lexical-hash-v1' : `lexical-hash-v1-${this.dimensions}`;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    return texts.map((t) => this.embedOne(t));
  }

  /** The synchronous core, also used by the extractive synthesiser to compare sentences. */
  embedOne(text: string): Float32Array {
    const v = new Float32Array(this.dimensions);
    const add = (feature: string, weight: number) => {
      const h = fnv1a32(feature);
      // The top bit picks the sign so colliding features cancel on average instead of piling up.
      v[h % this.dimensions] += h & 0x80000000 ? -weight : weight;
    };
    const words = tokenize(text);
    for (let i = 0; i < words.length; i++) {
      add(`w:${words[i]}`, WEIGHT.word);
      if (i > 0) add(`b:${words[i - 1]} ${words[i]}`, WEIGHT.bigram);
      const padded = `^${words[i]}$`;
      if (padded.length > 4) {
        for (let j = 0; j + 3 <= padded.length; j++) add(`c:${padded.slice(j, j + 3)}`, WEIGHT.trigram);
      }
    }
    // A text with no letters or digits still gets a direction of its own rather than zero.
    if (words.length === 0) add(`raw:${text.trim()}`, 1);
    return l2normalize(v);
  }
}
