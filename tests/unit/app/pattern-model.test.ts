import { describe, expect, it } from 'vitest';
import { advantageWeights, MAX_ADVANTAGE_WEIGHT } from '@/jobs/learning/patterns/advantage-weights';
import { seededRandom, seedFrom } from '@/jobs/shared/seeded-random';
import { evaluate, predict, probabilities, train, trainEpoch, withClasses, zeroModel } from '@/jobs/learning/patterns/softmax-model';
import { toTrainingSamples } from '@/jobs/learning/trajectories/to-training-samples';
import { threeBlobs } from '../../fixtures/app/learning-data';

const opts = (seed = 1) => ({ batchSize: 16, learningRate: 0.1, random: seededRandom(seed) });

describe('softmax model', () => {
  it('learns three separable classes, the loss falling from ln 3', () => {
    const data = threeBlobs(3, 300);
    const start = zeroModel(3, 2);
    expect(evaluate(start, data).loss).toBeCloseTo(Math.log(3), 6);
    const m = train(start, data, 15, opts());
    const fit = evaluate(m, data);
    expect(fit.accuracy).toBeGreaterThan(0.97);
    expect(fit.loss).toBeLessThan(0.2);
    expect(predict(m, [3, 0])).toBe(0);
    expect(predict(m, [-3, 3])).toBe(1);
    expect(predict(m, [-3, -3])).toBe(2);
  });

  it('is deterministic for a seed: the same job id trains the same weights', () => {
    const data = threeBlobs(4, 120);
    const a = train(zeroModel(3, 2), data, 5, opts(seedFrom('job-42')));
    const b = train(zeroModel(3, 2), data, 5, opts(seedFrom('job-42')));
    const c = train(zeroModel(3, 2), data, 5, opts(seedFrom('job-43')));
    expect(a.weights).toEqual(b.weights);
    expect(c.weights).not.toEqual(a.weights);
  });

  it('takes one step per mini-batch: a batch the size of the data is one gradient step', () => {
    const data = threeBlobs(5, 30);
    const full = trainEpoch(zeroModel(3, 2), data, { ...opts(), batchSize: 30 });
    const reversed = trainEpoch(zeroModel(3, 2), [...data].reverse(), { ...opts(9), batchSize: 30 });
    // One full-batch step does not depend on order; mini-batches would.
    full.weights.forEach((w, i) => expect(w).toBeCloseTo(reversed.weights[i], 12));
  });

  it('gives probabilities that sum to one, even for huge logits', () => {
    const m = { classes: 3, dim: 1, weights: [1000, 0, -1000, 0, 0, 0] };
    const p = probabilities(m, [5]);
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(p.every(Number.isFinite)).toBe(true);
    expect(predict(m, [5])).toBe(0);
  });

  it('grows new classes as zero rows and keeps the old ones', () => {
    const m = { classes: 2, dim: 2, weights: [1, 2, 3, 4, 5, 6] };
    const grown = withClasses(m, 3);
    expect(grown.classes).toBe(3);
    expect(grown.weights).toEqual([1, 2, 3, 4, 5, 6, 0, 0, 0]);
    expect(withClasses(m, 2)).toBe(m);
  });

  it('weights samples by advantage: better than average counts more, capped', () => {
    expect(advantageWeights([1, 1, 1])).toEqual([1, 1, 1]);
    const w = advantageWeights([0, 1, 2]);
    expect(w[2]).toBeGreaterThan(w[1]);
    expect(w[1]).toBeCloseTo(1, 12);
    expect(w[0]).toBeLessThan(1);
    expect(Math.max(...advantageWeights([0, 0, 0, 0, 0, 0, 0, 0, 0, 1000]))).toBeLessThanOrEqual(MAX_ADVANTAGE_WEIGHT);
  });

  it('a weighted loss follows the weights', () => {
    const m = zeroModel(2, 1);
    const data = [
      { x: [1], y: 0, w: 3 },
      { x: [1], y: 1, w: 1 },
    ];
    const trained = train(m, data, 50, opts());
    expect(predict(trained, [1])).toBe(0);
  });
});

describe('trajectory → training samples', () => {
  const trajectory = {
    id: 'traj-1',
    tenant: { orgId: 'acme' },
    createdAt: 1_000,
    steps: [
      { state: [0, 1], action: 2, reward: 0 },
      { state: [1, 0], action: 1, reward: 0 },
      { state: [1, 1], action: 0, reward: 1 },
    ],
  };

  it('labels each state with its action and the discounted return from it', () => {
    const samples = toTrainingSamples(trajectory, 0.5);
    expect(samples.map((s) => s.id)).toEqual(['traj-1#0', 'traj-1#1', 'traj-1#2']);
    expect(samples.map((s) => s.label)).toEqual([2, 1, 0]);
    expect(samples.map((s) => s.return)).toEqual([0.25, 0.5, 1]);
    expect(samples[0]).toMatchObject({ features: [0, 1], tenant: { orgId: 'acme' }, trajectoryId: 'traj-1', createdAt: 1_000 });
  });

  it('is deterministic, so rewriting the samples of a retried batch changes nothing', () => {
    expect(toTrainingSamples(trajectory)).toEqual(toTrainingSamples(trajectory));
  });
});
