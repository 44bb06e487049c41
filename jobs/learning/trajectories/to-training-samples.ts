import type { TrainingSample, Trajectory } from './trajectory';

/** Discount of future rewards. 0.99 values a reward 100 steps away at about a third. */
export const DEFAULT_DISCOUNT = 0.99;

/**
 * A trajectory's training samples: each step's state as features, its action as the
 * label, and the discounted return G_t = r_t + γ·G_{t+1} as the measure of how well the
 * action worked. Pure and deterministic: ids and values depend only on the trajectory.
 */
export function toTrainingSamples(trajectory: Trajectory, discount = DEFAULT_DISCOUNT): TrainingSample[] {
  if (!(discount >= 0 && discount <= 1)) throw new RangeError('discount must be in [0, 1]');
  const returns = new Array<number>(trajectory.steps.length);
  let g = 0;
  for (let t = trajectory.steps.length - 1; t >= 0; t--) {
    g = trajectory.steps[t].reward + discount * g;
    returns[t] = g;
  }
  return trajectory.steps.map((step, t) => ({
    id: `${trajectory.id}#${t}`,
    tenant: trajectory.tenant,
    trajectoryId: trajectory.id,
    step: t,
    features: step.state,
    label: step.action,
    return: returns[t],
    createdAt: trajectory.createdAt,
  }));
}
