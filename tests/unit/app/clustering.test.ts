import { describe, expect, it } from 'vitest';
import { clusterBySimilarity } from '@/jobs/memory/memories/clustering';
import { semanticMemoryId } from '@/jobs/memory/memories/memory';
import { LexicalHashEmbedder } from '@/jobs/shared/ports/embedder/lexical-hash-embedder';

const v = (...xs: number[]) => Float32Array.from(xs);

describe('clustering by cosine similarity', () => {
  it('groups vectors above the threshold and leaves the rest alone', () => {
    const clusters = clusterBySimilarity(
      [
        { id: 'a', vector: v(1, 0, 0) },
        { id: 'b', vector: v(0.95, 0.05, 0) },
        { id: 'c', vector: v(0, 1, 0) },
        { id: 'd', vector: v(0.9, 0.1, 0.05) },
        { id: 'e', vector: v(0, 0, 1) },
      ],
      0.8,
    );
    expect(clusters).toEqual([['a', 'b', 'd'], ['c'], ['e']]);
  });

  it('does not chain: a≈b and b≈c with a and c apart do not all join', () => {
    // cos(a,b) = cos(b,c) ≈ 0.87, cos(a,c) = 0.5.
    const a = v(1, 0);
    const b = v(Math.cos(Math.PI / 6), Math.sin(Math.PI / 6));
    const c = v(Math.cos(Math.PI / 3), Math.sin(Math.PI / 3));
    const clusters = clusterBySimilarity(
      [
        { id: 'a', vector: a },
        { id: 'b', vector: b },
        { id: 'c', vector: c },
      ],
      0.8,
    );
    expect(clusters.find((cl) => cl.includes('a'))).not.toContain('c');
  });

  it('is deterministic for the same input and refuses a bad threshold', () => {
    const items = Array.from({ length: 50 }, (_, i) => ({ id: `m${i}`, vector: v(Math.sin(i), Math.cos(i), i % 3) }));
    expect(clusterBySimilarity(items, 0.8)).toEqual(clusterBySimilarity(items, 0.8));
    expect(() => clusterBySimilarity(items, 1)).toThrow(/threshold/);
  });

  it('puts near-duplicate memories together with the lexical embedder at the required 0.8', async () => {
    const embedder = new LexicalHashEmbedder();
    const texts = {
      d1: 'The user prefers dark mode in the editor',
      d2: 'User prefers dark mode in the editor',
      d3: 'The user prefers the dark mode in the editor',
      m1: 'Weekly standup moved to Tuesday at 10am',
      m2: 'The weekly standup moved to Tuesday at 10am',
      x: 'Invoice 4411 was paid by bank transfer',
    };
    const vectors = await embedder.embed(Object.values(texts));
    const clusters = clusterBySimilarity(
      Object.keys(texts).map((id, i) => ({ id, vector: vectors[i] })),
      0.8,
    );
    expect(clusters).toEqual([['d1', 'd2', 'd3'], ['m1', 'm2'], ['x']]);
  });

  it('derives a semantic memory id from the sorted source ids', () => {
    expect(semanticMemoryId(['b', 'a'])).toBe(semanticMemoryId(['a', 'b']));
    expect(semanticMemoryId(['a', 'b'])).not.toBe(semanticMemoryId(['a', 'c']));
    expect(semanticMemoryId(['a', 'b'])).toMatch(/^sem-[0-9a-f]{32}$/);
  });
});
