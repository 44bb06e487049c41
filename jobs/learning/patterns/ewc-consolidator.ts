import { PermanentError } from '@/lib/errors/permanent-error';
import type { Tenant } from '@/lib/jobs/tenant';
import type { SampleStore } from '../trajectories/sample-store';
import { accumulateFisher, diagonalFisher } from './fisher';
import type { ElasticAnchorRecord, PatternModel } from './pattern-model';
import type { PatternModelStore } from './pattern-model-store';
import type { ProgressFn } from './pattern-trainer';

export interface ConsolidateRequest {
  name: string;
  tenant?: Tenant;
  lambda: number;
  /** The newest samples (the task just learnt) the Fisher information is estimated on. */
  sampleSize: number;
  now: number;
  signal?: AbortSignal;
  onProgress?: ProgressFn;
}

/**
 * Elastic weight consolidation (Kirkpatrick et al., 2017): estimates how much the
 * latest version's predictions on the current task depend on each weight (the diagonal
 * Fisher information), adds the information of the anchor it was trained under (online
 * EWC), and stores weights + Fisher as the version's anchor. The next pattern-training
 * then pays λ/2·Σ F_i (θ_i − θ*_i)² for moving important weights, so it learns the new
 * task without forgetting this one. Running it again recomputes the same anchor.
 */
export class EwcConsolidator {
  constructor(
    private readonly models: PatternModelStore,
    private readonly samples: SampleStore,
  ) {}

  async consolidate(req: ConsolidateRequest): Promise<{ model: PatternModel; anchor: ElasticAnchorRecord }> {
    const progress = req.onProgress ?? (async () => undefined);
    await progress(10, 'loading');
    const model = await this.models.latest(req.tenant, req.name);
    if (!model) throw new PermanentError(`No pattern model "${req.name}" to consolidate: run pattern-training first`);
    const inputs = (await this.samples.load(req.sampleSize, req.tenant)).map((s) => s.features).filter((x) => x.length === model.dim);
    if (inputs.length === 0) {
      throw new PermanentError(`No training samples with ${model.dim} features to estimate the Fisher information on`);
    }
    req.signal?.throwIfAborted();

    await progress(40, 'estimating-fisher', { samples: inputs.length });
    const fisher = accumulateFisher(diagonalFisher(model, inputs), model.trainedWithAnchor?.fisher);
    const anchor: ElasticAnchorRecord = {
      version: model.version,
      weights: model.weights,
      fisher,
      lambda: req.lambda,
      samples: inputs.length,
      consolidatedAt: req.now,
    };
    req.signal?.throwIfAborted();

    await progress(80, 'storing');
    const updated = await this.models.save({ ...model, anchor });
    await progress(100, 'complete');
    return { model: updated, anchor };
  }
}
