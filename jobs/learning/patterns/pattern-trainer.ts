import { PermanentError } from '@/lib/errors/permanent-error';
import type { Tenant } from '@/lib/jobs/tenant';
import type { SampleStore } from '../trajectories/sample-store';
import { advantageWeights } from './advantage-weights';
import type { PatternModel } from './pattern-model';
import { PatternModelStore } from './pattern-model-store';
import { seededRandom, seedFrom } from '../../shared/seeded-random';
import { elasticPenalty, evaluate, trainEpoch, withClasses, zeroModel, type ElasticAnchor, type Example } from './softmax-model';

/** Samples one training run reads at most (the newest): bounds memory and time. */
export const MAX_TRAINING_SAMPLES = 100_000;

export type ProgressFn = (percent: number, phase: string, detail?: Record<string, unknown>) => Promise<void>;

export interface TrainRequest {
  name: string;
  /** Absent: a model of all tenants' samples. */
  tenant?: Tenant;
  /** Seeds the shuffle and ties the version to the job: a retry rebuilds the same model. */
  jobId: string;
  batchSize: number;
  epochs: number;
  learningRate: number;
  now: number;
  /** @defaultValue MAX_TRAINING_SAMPLES */
  maxSamples?: number;
  signal?: AbortSignal;
  onProgress?: ProgressFn;
}

export type TrainOutcome =
  | { trained: true; model: PatternModel; reused: boolean; skippedSamples: number }
  | { trained: false; reason: string };

/**
 * Trains a new version of a pattern model on the training samples: softmax regression
 * from the previous version's weights (continual learning), held to the previous
 * version's elastic anchor when one exists, with advantage-weighted samples.
 */
export class PatternTrainer {
  constructor(
    private readonly models: PatternModelStore,
    private readonly samples: SampleStore,
  ) {}

  async train(req: TrainRequest): Promise<TrainOutcome> {
    const progress = req.onProgress ?? (async () => undefined);
    const done = await this.models.versionOfJob(req.tenant, req.name, req.jobId);
    const saved = done !== undefined ? await this.models.get(req.tenant, req.name, done) : undefined;
    if (saved) return { trained: true, model: saved, reused: true, skippedSamples: 0 };

    await progress(5, 'loading');
    const samples = await this.samples.load(req.maxSamples ?? MAX_TRAINING_SAMPLES, req.tenant);
    if (samples.length === 0) return { trained: false, reason: 'no training samples yet: run trajectory-process first' };

    const version = await this.models.reserveVersion(req.tenant, req.name, req.jobId);
    const previous = await this.models.latestBefore(req.tenant, req.name, version);
    const dim = previous?.dim ?? samples[0].features.length;
    const usable = samples.filter((s) => s.features.length === dim);
    if (usable.length === 0) {
      throw new PermanentError(
        `Model ${req.name} takes ${dim} features but no sample has that many; train a model of another name for the new features`,
      );
    }
    const weights = advantageWeights(usable.map((s) => s.return));
    const examples: Example[] = usable.map((s, i) => ({ x: s.features, y: s.label, w: weights[i] }));
    const classes = Math.max(previous?.classes ?? 2, ...usable.map((s) => s.label + 1));
    const stored = previous?.anchor ?? previous?.trainedWithAnchor;
    const anchor: ElasticAnchor | undefined = stored && { weights: stored.weights, fisher: stored.fisher, lambda: stored.lambda };

    const seed = seedFrom(req.jobId);
    const random = seededRandom(seed);
    let model = previous ? withClasses(previous, classes) : zeroModel(classes, dim);
    for (let epoch = 1; epoch <= req.epochs; epoch++) {
      req.signal?.throwIfAborted();
      model = trainEpoch(model, examples, { batchSize: req.batchSize, learningRate: req.learningRate, random, anchor });
      await progress(10 + (80 * epoch) / req.epochs, 'training', { epoch, epochs: req.epochs });
    }
    const fit = evaluate(model, examples);
    if (!Number.isFinite(fit.loss) || model.weights.some((w) => !Number.isFinite(w))) {
      throw new PermanentError(`Training diverged (learningRate ${req.learningRate} is too large for these samples)`);
    }

    await progress(95, 'saving');
    const record: PatternModel = {
      id: PatternModelStore.idOf(req.tenant, req.name, version),
      name: req.name,
      ...(req.tenant ? { tenant: req.tenant } : {}),
      version,
      classes: model.classes,
      dim: model.dim,
      weights: model.weights,
      metrics: {
        loss: fit.loss,
        accuracy: fit.accuracy,
        epochs: req.epochs,
        samples: examples.length,
        ...(anchor ? { elasticPenalty: elasticPenalty(model, anchor) } : {}),
      },
      training: {
        batchSize: req.batchSize,
        learningRate: req.learningRate,
        seed,
        ...(previous ? { warmStartFrom: previous.version } : {}),
      },
      trainedAt: req.now,
      trainedByJob: req.jobId,
      ...(stored ? { trainedWithAnchor: stored } : {}),
    };
    await this.models.save(record);
    return { trained: true, model: record, reused: false, skippedSamples: samples.length - usable.length };
  }
}
