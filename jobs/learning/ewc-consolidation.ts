import type { z } from 'zod';
import type { ewcConsolidationSchema } from './schemas';
import type { JobHandler } from '@/lib/runtime/handler';
import { EwcConsolidator } from './patterns/ewc-consolidator';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof ewcConsolidationSchema>;

export interface EwcConsolidationResult {
  modelName: string;
  version: number;
  lambda: number;
  /** Inputs the Fisher information was estimated on. */
  samples: number;
  /** Largest and mean Fisher value: how strongly the anchor will hold. */
  fisherMax: number;
  fisherMean: number;
}

/**
 * ewc-consolidation: anchors the latest version of `modelName` (the job's tenant's, or
 * the all-tenant model) with the diagonal Fisher information estimated on the newest
 * `sampleSize` samples, plus the information of the anchor it was trained under.
 * Later pattern-training runs are held to it with strength `lambda`. Re-running it
 * recomputes the same anchor, so a retry changes nothing.
 */
export function createEwcConsolidationHandler(stores: AppStores): JobHandler<Payload, EwcConsolidationResult> {
  const consolidator = new EwcConsolidator(stores.patternModels, stores.samples);

  return async (ctx) => {
    const d = ctx.data;
    const { model, anchor } = await consolidator.consolidate({
      name: d.modelName,
      tenant: ctx.tenant,
      lambda: d.lambda,
      sampleSize: d.sampleSize,
      now: Date.now(),
      signal: ctx.signal,
      onProgress: (percent, phase, detail) => ctx.progress(percent, phase, detail),
    });
    return {
      modelName: model.name,
      version: model.version,
      lambda: anchor.lambda,
      samples: anchor.samples,
      fisherMax: Math.max(...anchor.fisher),
      fisherMean: anchor.fisher.reduce((a, b) => a + b, 0) / anchor.fisher.length,
    };
  };
}
