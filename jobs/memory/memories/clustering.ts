import { dot, l2normalize } from '../../embedding/vectors/vector-math';

export interface ClusterItem {
  id: string;
  vector: Float32Array;
}

/**
 * Groups items whose cosine similarity passes `threshold`, greedily and in the order
 * given (callers pass a stable order, e.g. oldest first, so the result is
 * reproducible): each item joins the cluster whose centroid it is most similar to when
 * that similarity is above the threshold, and starts a cluster of its own otherwise.
 *
 * Centroid linkage, not single linkage: a chain a≈b≈c with a and c unrelated does not
 * pull a and c into one cluster, which matters when a cluster becomes one memory.
 * Cost is O(items × clusters × dimensions); at the job's cap of 10,000 memories and 256
 * dimensions that is seconds in the worst case (every memory unrelated to the others).
 */
export function clusterBySimilarity(items: readonly ClusterItem[], threshold: number): string[][] {
  if (!(threshold > -1 && threshold < 1)) throw new Error(`threshold must be in (-1, 1), got ${threshold}`);
  const clusters: Array<{ ids: string[]; sum: Float32Array; unit: Float32Array }> = [];
  for (const item of items) {
    const v = l2normalize(item.vector);
    let best = -1;
    let bestSim = threshold;
    for (let c = 0; c < clusters.length; c++) {
      if (clusters[c].unit.length !== v.length) continue;
      const sim = dot(v, clusters[c].unit);
      if (sim > bestSim) {
        best = c;
        bestSim = sim;
      }
    }
    if (best === -1) {
      clusters.push({ ids: [item.id], sum: Float32Array.from(v), unit: v });
      continue;
    }
    const cluster = clusters[best];
    cluster.ids.push(item.id);
    for (let i = 0; i < v.length; i++) cluster.sum[i] += v[i];
    cluster.unit = l2normalize(cluster.sum);
  }
  return clusters.map((c) => c.ids);
}
