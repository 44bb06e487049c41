/**
 * Multinomial logistic (softmax) regression trained by mini-batch SGD, in plain
 * TypeScript. Small and convex: the right size for "which action works in which state"
 * patterns, and exact enough for elastic weight consolidation to be shown, not claimed.
 * Pure: no I/O, randomness comes in as a seeded generator.
 */

export interface SoftmaxModel {
  classes: number;
  /** Features per example (the bias is extra). */
  dim: number;
  /** Row-major `classes × (dim + 1)`; the last column of each row is its bias. */
  weights: number[];
}

export interface Example {
  x: readonly number[];
  y: number;
  /** Weight in the loss. @defaultValue 1 */
  w?: number;
}

/** The elastic anchor: old weights θ*, their diagonal Fisher information F and strength λ. */
export interface ElasticAnchor {
  weights: readonly number[];
  fisher: readonly number[];
  lambda: number;
}

export interface EpochOptions {
  batchSize: number;
  learningRate: number;
  random: () => number;
  /** When given, training also minimises λ/2·Σ F_i (θ_i − θ*_i)². */
  anchor?: ElasticAnchor;
  /**
   * L2 shrinkage per step; keeps weights finite on separable data.
   * @defaultValue 1e-4
   */
  l2?: number;
}

export function zeroModel(classes: number, dim: number): SoftmaxModel {
  if (!(classes >= 2 && dim >= 1)) throw new RangeError('a model needs at least 2 classes and 1 feature');
  return { classes, dim, weights: new Array<number>(classes * (dim + 1)).fill(0) };
}

/** The same model with zero rows added up to `classes` (new actions seen in new data). */
export function withClasses(model: SoftmaxModel, classes: number): SoftmaxModel {
  if (classes <= model.classes) return model;
  const extra = new Array<number>((classes - model.classes) * (model.dim + 1)).fill(0);
  return { classes, dim: model.dim, weights: [...model.weights, ...extra] };
}

/** Class probabilities for one example (softmax, shifted by the max logit for stability). */
export function probabilities(model: SoftmaxModel, x: readonly number[]): number[] {
  const { classes, dim, weights } = model;
  const stride = dim + 1;
  const logits = new Array<number>(classes);
  let max = -Infinity;
  for (let k = 0; k < classes; k++) {
    let z = weights[k * stride + dim];
    for (let j = 0; j < dim; j++) z += weights[k * stride + j] * x[j];
    logits[k] = z;
    if (z > max) max = z;
  }
  let sum = 0;
  for (let k = 0; k < classes; k++) {
    logits[k] = Math.exp(logits[k] - max);
    sum += logits[k];
  }
  return logits.map((v) => v / sum);
}

export function predict(model: SoftmaxModel, x: readonly number[]): number {
  const p = probabilities(model, x);
  return p.indexOf(Math.max(...p));
}

/** Weighted mean cross-entropy and (unweighted) accuracy. */
export function evaluate(model: SoftmaxModel, examples: readonly Example[]): { loss: number; accuracy: number } {
  if (examples.length === 0) return { loss: 0, accuracy: 0 };
  let loss = 0;
  let weight = 0;
  let correct = 0;
  for (const e of examples) {
    const p = probabilities(model, e.x);
    const w = e.w ?? 1;
    loss -= w * Math.log(Math.max(p[e.y] ?? 0, 1e-12));
    weight += w;
    if (p.indexOf(Math.max(...p)) === e.y) correct++;
  }
  return { loss: weight > 0 ? loss / weight : 0, accuracy: correct / examples.length };
}

/** λ/2·Σ F_i (θ_i − θ*_i)² over the anchored weights. */
export function elasticPenalty(model: SoftmaxModel, anchor: ElasticAnchor): number {
  let s = 0;
  for (let i = 0; i < anchor.weights.length; i++) {
    const d = model.weights[i] - anchor.weights[i];
    s += anchor.fisher[i] * d * d;
  }
  return (anchor.lambda / 2) * s;
}

/**
 * One pass over the examples in a seeded random order, in mini-batches: a gradient
 * step on the weighted mean cross-entropy, then the elastic and L2 terms as exact
 * proximal steps, θ ← (θ + ηλF·θ*) / (1 + ηλF + η·l2). A proximal step cannot overshoot
 * however large λ·F is, where a plain gradient step on the penalty diverges once
 * η·λ·F passes 2. Returns a new model.
 */
export function trainEpoch(model: SoftmaxModel, examples: readonly Example[], opts: EpochOptions): SoftmaxModel {
  const { classes, dim } = model;
  const stride = dim + 1;
  const w = model.weights.slice();
  const lr = opts.learningRate;
  const l2 = opts.l2 ?? 1e-4;
  const anchor = opts.anchor;
  const order = shuffled(examples.length, opts.random);
  const grad = new Array<number>(w.length);
  const current: SoftmaxModel = { classes, dim, weights: w };

  for (let start = 0; start < order.length; start += opts.batchSize) {
    grad.fill(0);
    let total = 0;
    for (const idx of order.slice(start, start + opts.batchSize)) {
      const e = examples[idx];
      const weight = e.w ?? 1;
      if (weight <= 0) continue;
      const p = probabilities(current, e.x);
      for (let k = 0; k < classes; k++) {
        const err = weight * (p[k] - (k === e.y ? 1 : 0));
        for (let j = 0; j < dim; j++) grad[k * stride + j] += err * e.x[j];
        grad[k * stride + dim] += err;
      }
      total += weight;
    }
    if (total === 0) continue;
    for (let i = 0; i < w.length; i++) {
      const stepped = w[i] - (lr * grad[i]) / total;
      const pull = anchor && i < anchor.weights.length ? lr * anchor.lambda * anchor.fisher[i] : 0;
      const target = pull ? pull * anchor!.weights[i] : 0;
      w[i] = (stepped + target) / (1 + pull + lr * l2);
    }
  }
  return current;
}

/** Trains `epochs` passes from `start`; a convenience over trainEpoch for callers without progress. */
export function train(start: SoftmaxModel, examples: readonly Example[], epochs: number, opts: EpochOptions): SoftmaxModel {
  let m = start;
  for (let e = 0; e < epochs; e++) m = trainEpoch(m, examples, opts);
  return m;
}

function shuffled(n: number, random: () => number): number[] {
  const a = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}
