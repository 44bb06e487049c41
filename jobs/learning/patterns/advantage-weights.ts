/** Cap of one sample's weight, so a single lucky episode cannot dominate training. */
export const MAX_ADVANTAGE_WEIGHT = 20;

/**
 * Advantage-weighted regression weights (Peng et al., 2019) with the mean return as the
 * baseline: w = min(exp((G − mean) / std), 20). Actions that led to better-than-usual
 * returns count more, worse ones less, so the model learns what works rather than
 * copying every action taken. Equal returns give equal weights of 1.
 */
export function advantageWeights(returns: readonly number[]): number[] {
  if (returns.length === 0) return [];
  const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
  const variance = returns.reduce((a, g) => a + (g - mean) ** 2, 0) / returns.length;
  const std = Math.sqrt(variance);
  if (std < 1e-9) return returns.map(() => 1);
  return returns.map((g) => Math.min(Math.exp((g - mean) / std), MAX_ADVANTAGE_WEIGHT));
}
