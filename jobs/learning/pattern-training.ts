import type { z } from 'zod';
import type { patternTrainingSchema } from './schemas';
import type { JobHandler } from '@/lib/runtime/handler';
import { PatternTrainer } from './patterns/pattern-trainer';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof patternTrainingSchema>;

export type PatternTrainingResult =
  | {
      trained: true;
      modelName: string;
      version: number;
      metrics: { loss: number; accuracy: number; epochs: number; samples: number; elasticPenalty?: number };
      /** An earlier attempt of this job had already saved the version: nothing was retrained. */
      reused: boolean;
      /** Samples left out because their feature count differs from the model's. */
      skippedSamples: number;
      /** The model was held to an EWC anchor of this version. */
      anchoredTo?: number;
    }
  | { trained: false; modelName: string; reason: string };

/**
 * pattern-training: trains a new version of `modelName` (softmax regression by
 * mini-batch SGD; `batchSize`, `epochs`, `learningRate`) on the newest training samples
 * of the job's tenant, or of all tenants without one, warm-started from the previous
 * version and held to its EWC anchor when it has one. The shuffle is seeded from the
 * job id and the version is reserved per job id, so a retry or replay yields the same
 * version rather than another. No samples yet is an outcome, not a failure: the daily
 * schedule may run before any trajectory was processed.
 */
export function createPatternTrainingHandler(stores: AppStores): JobHandler<Payload, PatternTrainingResult> {
  const trainer = new PatternTrainer(stores.patternModels, stores.samples);

  return async (ctx) => {
    const d = ctx.data;
    const outcome = await trainer.train({
      name: d.modelName,
      tenant: ctx.tenant,
      jobId: ctx.jobId,
      batchSize: d.batchSize,
      epochs: d.epochs,
      learningRate: d.learningRate,
      now: Date.now(),
      signal: ctx.signal,
      onProgress: (percent, phase, detail) => ctx.progress(percent, phase, detail),
    });
    if (!outcome.trained) {
      await ctx.progress(100, 'complete', { trained: false });
      return { trained: false, modelName: d.modelName, reason: outcome.reason };
    }
    const m = outcome.model;
    await ctx.progress(100, 'complete', { version: m.version, loss: m.metrics.loss, accuracy: m.metrics.accuracy });
    return {
      trained: true,
      modelName: m.name,
      version: m.version,
      metrics: m.metrics,
      reused: outcome.reused,
      skippedSamples: outcome.skippedSamples,
      ...(m.trainedWithAnchor ? { anchoredTo: m.trainedWithAnchor.version } : {}),
    };
  };
}
