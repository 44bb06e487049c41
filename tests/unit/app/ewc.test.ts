import { describe, expect, it } from 'vitest';
import { accumulateFisher, diagonalFisher } from '@/jobs/learning/patterns/fisher';
import { seededRandom } from '@/jobs/shared/seeded-random';
import { elasticPenalty, evaluate, probabilities, train, zeroModel } from '@/jobs/learning/patterns/softmax-model';
import { twoTasks } from '../../fixtures/app/learning-data';

const opts = (seed: number) => ({ batchSize: 16, learningRate: 0.1, random: seededRandom(seed) });

describe('elastic weight consolidation', () => {
  const train_ = twoTasks(7, 400);
  const test = twoTasks(8, 400);
  const afterA = train(zeroModel(2, 4), train_.a, 20, opts(1));
  const fisher = diagonalFisher(
    afterA,
    train_.a.map((e) => e.x),
  );

  it('task A is learnt first', () => {
    expect(evaluate(afterA, test.a).accuracy).toBeGreaterThan(0.95);
  });

  it('forgets task A measurably less when B is trained with the anchor than without', () => {
    const plain = train(afterA, train_.b, 30, opts(2));
    const anchored = train(afterA, train_.b, 30, {
      ...opts(2),
      anchor: { weights: afterA.weights, fisher, lambda: 10 },
    });
    const plainA = evaluate(plain, test.a).accuracy;
    const ewcA = evaluate(anchored, test.a).accuracy;
    // Without EWC, B overwrites x0's weights and A collapses; with it, A survives.
    expect(plainA).toBeLessThan(0.3);
    expect(ewcA).toBeGreaterThan(0.9);
    expect(ewcA - plainA).toBeGreaterThan(0.5);
    // ...and B is still learnt, through the feature A did not use.
    expect(evaluate(anchored, test.b).accuracy).toBeGreaterThan(0.9);
    expect(evaluate(plain, test.b).accuracy).toBeGreaterThan(0.95);
  });

  it('the penalty is what holds: it is larger for the model that drifted', () => {
    const anchor = { weights: afterA.weights, fisher, lambda: 10 };
    const plain = train(afterA, train_.b, 30, opts(2));
    const anchored = train(afterA, train_.b, 30, { ...opts(2), anchor });
    expect(elasticPenalty(afterA, anchor)).toBe(0);
    expect(elasticPenalty(plain, anchor)).toBeGreaterThan(elasticPenalty(anchored, anchor) * 5);
  });

  it('stays stable however strong the anchor (proximal step, no divergence)', () => {
    const held = train(afterA, train_.b, 10, {
      ...opts(3),
      anchor: { weights: afterA.weights, fisher: fisher.map(() => 1e6), lambda: 1e3 },
    });
    expect(held.weights.every(Number.isFinite)).toBe(true);
    held.weights.forEach((w, i) => expect(w).toBeCloseTo(afterA.weights[i], 3));
  });

  it('computes the expected Fisher: Σ_y p(y|x)·(∂ log p(y|x)/∂θ)², averaged over inputs', () => {
    const m = { classes: 3, dim: 2, weights: [0.5, -1, 0.2, 1, 0.3, -0.4, -0.7, 0.1, 0.05] };
    const xs = [
      [1, 2],
      [-0.5, 0.3],
      [2, -1],
    ];
    const expected = new Array<number>(m.weights.length).fill(0);
    for (const x of xs) {
      const p = probabilities(m, x);
      const xb = [...x, 1];
      for (let y = 0; y < 3; y++) {
        for (let k = 0; k < 3; k++) {
          for (let j = 0; j < 3; j++) {
            const g = ((k === y ? 1 : 0) - p[k]) * xb[j];
            expected[k * 3 + j] += (p[y] * g * g) / xs.length;
          }
        }
      }
    }
    diagonalFisher(m, xs).forEach((f, i) => expect(f).toBeCloseTo(expected[i], 12));
  });

  it('accumulates the information of earlier anchors (online EWC)', () => {
    expect(accumulateFisher([1, 2, 3], [0.5, 0.5])).toEqual([1.5, 2.5, 3]);
    expect(accumulateFisher([1, 2], undefined)).toEqual([1, 2]);
  });
});
