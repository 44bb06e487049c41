import { probabilities, type SoftmaxModel } from './softmax-model';

/**
 * The diagonal of the Fisher information of a softmax model, averaged over inputs:
 * F_kj = E_x[ Σ_y p(y|x) (∂ log p(y|x) / ∂θ_kj)² ]. For softmax regression the sum
 * over y has a closed form, p_k(1 − p_k)·x_j², so this is the true (expected) Fisher,
 * not the empirical one that would need labels. Large F_kj: the model's predictions
 * on this data depend strongly on θ_kj, so EWC holds it close to its anchored value.
 */
export function diagonalFisher(model: SoftmaxModel, inputs: ReadonlyArray<readonly number[]>): number[] {
  const { classes, dim } = model;
  const stride = dim + 1;
  const f = new Array<number>(model.weights.length).fill(0);
  if (inputs.length === 0) return f;
  for (const x of inputs) {
    const p = probabilities(model, x);
    for (let k = 0; k < classes; k++) {
      const v = p[k] * (1 - p[k]);
      for (let j = 0; j < dim; j++) f[k * stride + j] += v * x[j] * x[j];
      f[k * stride + dim] += v;
    }
  }
  return f.map((v) => v / inputs.length);
}

/**
 * Online EWC: the information of earlier anchors adds to the new one's, so a third
 * task does not forget the first (Schwarz et al., 2018, with γ = 1). Shorter arrays
 * (a model that gained classes since) count as zero where they end.
 */
export function accumulateFisher(current: readonly number[], previous: readonly number[] | undefined): number[] {
  if (!previous) return current.slice();
  return current.map((v, i) => v + (previous[i] ?? 0));
}
