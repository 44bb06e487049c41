import { cosine } from '../../../embedding/vectors/vector-math';
import { LexicalHashEmbedder } from '../embedder/lexical-hash-embedder';
import type { Synthesiser } from './synthesiser';

export interface ExtractiveSynthesiserOptions {
  /**
   * Upper bound of the result's length in characters. A sentence that would pass it is
   * left out (the first one is cut at a word boundary instead).
   * @defaultValue 500
   */
  maxChars?: number;
  /**
   * Most sentences kept.
   * @defaultValue 3
   */
  maxSentences?: number;
  /**
   * A sentence this similar (cosine) to one already kept is a duplicate and skipped.
   * @defaultValue 0.85
   */
  duplicateSimilarity?: number;
}

/** Sentences of a text: split after . ! ? or a line break, trimmed, empty ones dropped. */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s));
}

/**
 * A local synthesiser that writes nothing new: it scores every sentence of the cluster
 * by its lexical similarity to the cluster's centroid, keeps the most central ones,
 * skips near-duplicates, and joins them within a length bound. Deterministic, offline,
 * and only as good as the sentences it is given.
 */
export class ExtractiveSynthesiser implements Synthesiser {
  readonly name = 'extractive-v1';
  private readonly maxChars: number;
  private readonly maxSentences: number;
  private readonly duplicateSimilarity: number;
  private readonly embedder = new LexicalHashEmbedder();

  constructor(opts: ExtractiveSynthesiserOptions = {}) {
    this.maxChars = opts.maxChars ?? 500;
    this.maxSentences = opts.maxSentences ?? 3;
    this.duplicateSimilarity = opts.duplicateSimilarity ?? 0.85;
    if (this.maxChars < 20) throw new Error(`maxChars must be at least 20, got ${this.maxChars}`);
    if (this.maxSentences < 1) throw new Error(`maxSentences must be at least 1, got ${this.maxSentences}`);
  }

  async synthesise(contents: readonly string[], signal?: AbortSignal): Promise<string> {
    signal?.throwIfAborted();
    // Exact repeats across memories collapse first; order of first appearance breaks ties later.
    const sentences = [...new Set(contents.flatMap(splitSentences))];
    if (sentences.length === 0) throw new Error('Nothing to synthesise: the cluster has no text');
    const vectors = sentences.map((s) => this.embedder.embedOne(s));
    const centroid = new Float32Array(this.embedder.dimensions);
    for (const v of vectors) for (let i = 0; i < v.length; i++) centroid[i] += v[i];
    const ranked = sentences
      .map((text, i) => ({ text, i, score: cosine(vectors[i], centroid) }))
      .sort((a, b) => b.score - a.score || a.i - b.i);

    const kept: typeof ranked = [];
    let length = 0;
    for (const candidate of ranked) {
      if (kept.length >= this.maxSentences) break;
      if (kept.some((k) => cosine(vectors[k.i], vectors[candidate.i]) >= this.duplicateSimilarity)) continue;
      const added = (kept.length ? 1 : 0) + candidate.text.length;
      if (length + added > this.maxChars) continue;
      kept.push(candidate);
      length += added;
    }
    if (kept.length === 0) return truncateAtWord(ranked[0].text, this.maxChars);
    return kept.map((k) => k.text).join(' ');
  }
}

function truncateAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
