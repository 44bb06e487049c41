import { useTestRedis } from '../../helpers/use-test-redis';
import { storesOf } from '../../helpers/shipped-jobs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { PermanentError } from '@/lib/errors/permanent-error';
import { readyClient } from '@/lib/redis/connection';
import { PatternModelStore } from '@/jobs/learning/patterns/pattern-model-store';
import { elasticPenalty, evaluate, predict, type Example } from '@/jobs/learning/patterns/softmax-model';
import { SampleStore } from '@/jobs/learning/trajectories/sample-store';
import { TrajectoryStore } from '@/jobs/learning/trajectories/trajectory-store';
import { createEwcConsolidationHandler } from '@/jobs/learning/ewc-consolidation';
import { createPatternTrainingHandler } from '@/jobs/learning/pattern-training';
import { createTrajectoryProcessHandler } from '@/jobs/learning/trajectory-process';
import { makeBullpen } from '../../helpers/make-bullpen';
import { makeJobContext } from '../../helpers/job-context';
import { makeTrajectories } from '../../fixtures/app/trajectories';
import { twoTasks } from '../../fixtures/app/learning-data';

const acme = { orgId: 'acme' };
const globex = { orgId: 'globex', workspaceId: 'lab' };

let bullpen: Bullpen;
let trajectories: TrajectoryStore;
let samples: SampleStore;
let models: PatternModelStore;

const server = useTestRedis();
beforeEach(async () => {
  bullpen = makeBullpen(server.redis);
  await readyClient(bullpen.redis);
  trajectories = new TrajectoryStore(bullpen.redis, bullpen.keys);
  samples = new SampleStore(bullpen.redis, bullpen.keys);
  models = new PatternModelStore(bullpen.redis, bullpen.keys);
});
afterEach(async () => {
  await bullpen.close();
});

async function seed(tenant: typeof acme | typeof globex, count: number, prefix: string, steps = 10) {
  for (const t of makeTrajectories({ tenant, count, steps, prefix, seed: prefix.length })) await trajectories.add(t);
}

/**
 * One one-step trajectory per example: the state is its features, the action its class,
 * the reward 1. Every sample then has the same return, so the same weight (1): the
 * samples are the examples.
 */
async function addExamples(tenant: typeof acme, examples: readonly Example[], prefix: string, createdAt: number) {
  for (const [i, e] of examples.entries()) {
    await trajectories.add({
      id: `${prefix}-${i}`,
      tenant,
      createdAt: createdAt + i,
      steps: [{ state: [...e.x], action: e.y, reward: 1 }],
    });
  }
}

async function snapshot() {
  const all: unknown[] = [];
  for (const tenant of [acme, globex]) for await (const s of samples.exportByTenant(tenant)) all.push(s);
  return { samples: all, pending: await trajectories.countPending() };
}

describe('trajectory-process', () => {
  it('turns pending trajectories into samples and marks them processed, once', async () => {
    await seed(acme, 72, 'a');
    await seed(globex, 3, 'g');
    const handler = createTrajectoryProcessHandler(storesOf(bullpen));
    const ctx = makeJobContext('trajectory-process', { limit: 500 });

    const result = await handler(ctx);
    expect(result).toEqual({ processed: 75, samples: 750, alreadyProcessed: 0, missing: 0 });
    expect(await samples.countByTenant(acme)).toBe(720);
    expect(await samples.countByTenant(globex)).toBe(30);
    expect(await trajectories.countPending()).toBe(0);
    const t = await trajectories.get('a-3');
    expect(t?.processedAt).toBeGreaterThan(0);
    const s = await samples.get('a-3#9');
    expect(s).toMatchObject({ trajectoryId: 'a-3', step: 9, tenant: acme, label: t!.steps[9].action, features: t!.steps[9].state });
    expect(s!.return).toBe(t!.steps[9].reward);

    expect(ctx.progressReports[0]).toMatchObject({ percent: 0, phase: 'selecting' });
    expect(ctx.progressReports.some((p) => p.phase === 'processing' && p.percent > 5 && p.percent < 100)).toBe(true);
    expect(ctx.progressReports.at(-1)).toMatchObject({ percent: 100, phase: 'complete' });

    // A retry (same job) and a later run change nothing.
    const before = await snapshot();
    expect(await handler(makeJobContext('trajectory-process', { limit: 500 }, { jobId: ctx.jobId, attempt: 2 }))).toMatchObject({
      processed: 0,
    });
    expect(await snapshot()).toEqual(before);
  });

  it('processes only the job tenant’s trajectories, and the listed ones when given', async () => {
    await seed(acme, 4, 'a');
    await seed(globex, 4, 'g');
    const handler = createTrajectoryProcessHandler(storesOf(bullpen));

    const own = await handler(makeJobContext('trajectory-process', { limit: 500 }, { tenant: globex }));
    expect(own.processed).toBe(4);
    expect(await samples.countByTenant(acme)).toBe(0);
    expect(await trajectories.countPending()).toBe(4);

    const listed = await handler(
      makeJobContext('trajectory-process', { limit: 500, trajectoryIds: ['a-1', 'a-2', 'g-1', 'nope'] }, { tenant: acme }),
    );
    // g-1 is another tenant's: treated as missing, not processed.
    expect(listed).toEqual({ processed: 2, samples: 20, alreadyProcessed: 0, missing: 2 });
    expect(await samples.countByTenant(acme)).toBe(20);
  });

  it('respects limit, oldest first', async () => {
    await seed(acme, 10, 'a');
    const result = await createTrajectoryProcessHandler(storesOf(bullpen))(makeJobContext('trajectory-process', { limit: 3 }));
    expect(result.processed).toBe(3);
    expect((await trajectories.get('a-0'))?.processedAt).toBeDefined();
    expect((await trajectories.get('a-3'))?.processedAt).toBeUndefined();
  });

  it('refuses a second trajectory with an existing id', async () => {
    await seed(acme, 1, 'a');
    const [dup] = makeTrajectories({ tenant: acme, count: 1, prefix: 'a' });
    await expect(trajectories.add(dup)).rejects.toMatchObject({ code: 'CONFLICT' });
  });
});

describe('pattern-training', () => {
  const payload = { modelName: 'router', batchSize: 32, epochs: 8, learningRate: 0.2 };

  it('trains a model on the samples and stores it with its metrics', async () => {
    await seed(acme, 30, 'a');
    await createTrajectoryProcessHandler(storesOf(bullpen))(makeJobContext('trajectory-process', { limit: 500 }));
    const ctx = makeJobContext('pattern-training', payload, { tenant: acme });
    const result = await createPatternTrainingHandler(storesOf(bullpen))(ctx);

    expect(result).toMatchObject({ trained: true, modelName: 'router', version: 1, reused: false });
    const model = await models.latest(acme, 'router');
    expect(model).toMatchObject({ version: 1, classes: 2, dim: 3, tenant: acme, trainedByJob: ctx.jobId });
    expect(model!.metrics).toMatchObject({ epochs: 8, samples: 300 });
    // The rewarded rule is "action 1 when x0 > 0": the model has learnt it.
    expect(model!.metrics.accuracy).toBeGreaterThan(0.7);
    expect(predict(model!, [3, 0, 0])).toBe(1);
    expect(predict(model!, [-3, 0, 0])).toBe(0);

    const epochs = ctx.progressReports.filter((p) => p.phase === 'training');
    expect(epochs).toHaveLength(8);
    expect(epochs.map((p) => p.percent)).toEqual([...epochs.map((p) => p.percent)].sort((a, b) => a - b));
    expect(ctx.progressReports.at(-1)).toMatchObject({ percent: 100, phase: 'complete' });
  });

  it('a retry of the same job returns the same version; a retry after a lost save retrains it identically', async () => {
    await seed(acme, 10, 'a');
    await createTrajectoryProcessHandler(storesOf(bullpen))(makeJobContext('trajectory-process', { limit: 500 }));
    const handler = createPatternTrainingHandler(storesOf(bullpen));
    const first = await handler(makeJobContext('pattern-training', payload, { jobId: 'train-1' }));
    const saved = await models.latest(undefined, 'router');

    const retry = await handler(makeJobContext('pattern-training', payload, { jobId: 'train-1', attempt: 2 }));
    expect(retry).toMatchObject({ trained: true, version: 1, reused: true });
    expect(await models.versions(undefined, 'router')).toEqual([1]);
    expect(first).toMatchObject({ version: 1 });

    // Simulate the first attempt dying after reserving its version but before saving.
    const fresh = makeBullpen(server.redis);
    await readyClient(fresh.redis);
    try {
      const freshTrajectories = new TrajectoryStore(fresh.redis, fresh.keys);
      for (const t of makeTrajectories({ tenant: acme, count: 10, prefix: 'a', seed: 1 })) await freshTrajectories.add(t);
      await createTrajectoryProcessHandler(storesOf(fresh))(makeJobContext('trajectory-process', { limit: 500 }));
      const freshModels = new PatternModelStore(fresh.redis, fresh.keys);
      expect(await freshModels.reserveVersion(undefined, 'router', 'train-1')).toBe(1);
      await createPatternTrainingHandler(storesOf(fresh))(makeJobContext('pattern-training', payload, { jobId: 'train-1', attempt: 2 }));
      const rebuilt = await freshModels.latest(undefined, 'router');
      expect(rebuilt!.version).toBe(1);
      expect(rebuilt!.weights).toEqual(saved!.weights);
    } finally {
      await fresh.close();
    }
  });

  it('a new job trains a new version, warm-started from the previous one', async () => {
    await seed(acme, 10, 'a');
    await createTrajectoryProcessHandler(storesOf(bullpen))(makeJobContext('trajectory-process', { limit: 500 }));
    const handler = createPatternTrainingHandler(storesOf(bullpen));
    await handler(makeJobContext('pattern-training', payload, { jobId: 'daily-1' }));
    const second = await handler(makeJobContext('pattern-training', payload, { jobId: 'daily-2' }));
    expect(second).toMatchObject({ trained: true, version: 2 });
    expect((await models.latest(undefined, 'router'))!.training.warmStartFrom).toBe(1);
    expect(await models.versions(undefined, 'router')).toEqual([1, 2]);
  });

  it('with no samples it reports that and stores nothing', async () => {
    const result = await createPatternTrainingHandler(storesOf(bullpen))(makeJobContext('pattern-training', payload));
    expect(result).toMatchObject({ trained: false });
    expect(await models.latest(undefined, 'router')).toBeUndefined();
  });
});

describe('ewc-consolidation', () => {
  const training = { modelName: 'router', batchSize: 32, epochs: 5, learningRate: 0.2 };

  it('stores the anchor with the model, and the next training is held to it', async () => {
    await seed(acme, 10, 'a');
    await createTrajectoryProcessHandler(storesOf(bullpen))(makeJobContext('trajectory-process', { limit: 500 }));
    await createPatternTrainingHandler(storesOf(bullpen))(makeJobContext('pattern-training', training, { tenant: acme }));
    const v1 = await models.latest(acme, 'router');

    const ctx = makeJobContext('ewc-consolidation', { modelName: 'router', lambda: 10, sampleSize: 1_000 }, { tenant: acme });
    const result = await createEwcConsolidationHandler(storesOf(bullpen))(ctx);
    expect(result).toMatchObject({ modelName: 'router', version: 1, lambda: 10, samples: 100 });
    expect(result.fisherMax).toBeGreaterThan(0);
    const anchored = await models.latest(acme, 'router');
    expect(anchored!.anchor).toMatchObject({ version: 1, lambda: 10, samples: 100, weights: v1!.weights });
    expect(anchored!.anchor!.fisher).toHaveLength(v1!.weights.length);
    expect(ctx.progressReports.map((p) => p.phase)).toEqual(['loading', 'estimating-fisher', 'storing', 'complete']);

    // Running it again recomputes the same anchor and adds no version.
    await createEwcConsolidationHandler(storesOf(bullpen))(
      makeJobContext('ewc-consolidation', { modelName: 'router', lambda: 10, sampleSize: 1_000 }, { tenant: acme }),
    );
    const again = await models.latest(acme, 'router');
    expect({ ...again!.anchor, consolidatedAt: 0 }).toEqual({ ...anchored!.anchor, consolidatedAt: 0 });
    expect(await models.versions(acme, 'router')).toEqual([1]);

    // The next training pays the elastic penalty and records the anchor it was held to.
    const next = await createPatternTrainingHandler(storesOf(bullpen))(makeJobContext('pattern-training', training, { tenant: acme }));
    expect(next).toMatchObject({ trained: true, version: 2, anchoredTo: 1 });
    const v2 = await models.latest(acme, 'router');
    expect(v2!.trainedWithAnchor?.version).toBe(1);
    // The recorded penalty is that of the new weights against the anchor they were held to.
    expect(v2!.metrics.elasticPenalty).toBeGreaterThan(0);
    expect(v2!.metrics.elasticPenalty).toBeCloseTo(elasticPenalty(v2!, anchored!.anchor!), 9);
  });

  it('keeps an earlier task measurably better with the elastic penalty than without it', async () => {
    // Task A, then task B (tests/fixtures/app/learning-data.ts): B can be learnt through x1,
    // but plain training on B turns x0's weights against A.
    const learnt = twoTasks(7, 400);
    const unseen = twoTasks(8, 400);
    const stores = storesOf(bullpen);
    const process = createTrajectoryProcessHandler(stores);
    const train = createPatternTrainingHandler(stores);
    const consolidate = createEwcConsolidationHandler(stores);
    const accuracy = async (modelName: string, examples: readonly Example[]) =>
      evaluate((await models.latest(acme, modelName))!, examples).accuracy;

    // Two models learn A alike: the same samples and the same job id, so the same shuffle...
    await addExamples(acme, learnt.a, 'a', 1_700_000_000_000);
    await process(makeJobContext('trajectory-process', { limit: 1_000 }, { tenant: acme }));
    for (const modelName of ['held', 'free']) {
      await train(
        makeJobContext('pattern-training', { modelName, batchSize: 16, epochs: 20, learningRate: 0.1 }, { tenant: acme, jobId: 'learn-a' }),
      );
    }
    expect((await models.latest(acme, 'free'))!.weights).toEqual((await models.latest(acme, 'held'))!.weights);
    expect(await accuracy('held', unseen.a)).toBeGreaterThan(0.95);

    // ...and are consolidated on A: one with the penalty, one with it switched off (λ = 0).
    await consolidate(makeJobContext('ewc-consolidation', { modelName: 'held', lambda: 10, sampleSize: 1_000 }, { tenant: acme }));
    await consolidate(makeJobContext('ewc-consolidation', { modelName: 'free', lambda: 0, sampleSize: 1_000 }, { tenant: acme }));

    // A's samples leave the training set, as they do once MAX_TRAINING_SAMPLES (100,000)
    // newer ones exist; deleting them is quicker than writing those. Both then learn B alike.
    await samples.deleteByTenant(acme);
    await addExamples(acme, learnt.b, 'b', 1_800_000_000_000);
    await process(makeJobContext('trajectory-process', { limit: 1_000 }, { tenant: acme }));
    for (const modelName of ['held', 'free']) {
      const result = await train(
        makeJobContext('pattern-training', { modelName, batchSize: 16, epochs: 30, learningRate: 0.1 }, { tenant: acme, jobId: 'learn-b' }),
      );
      expect(result).toMatchObject({ trained: true, version: 2, anchoredTo: 1, metrics: { samples: 400 } });
    }

    const held = { a: await accuracy('held', unseen.a), b: await accuracy('held', unseen.b) };
    const free = { a: await accuracy('free', unseen.a), b: await accuracy('free', unseen.b) };
    // Without the penalty A is forgotten; with it A is kept, by a wide margin...
    expect(held.a - free.a, JSON.stringify({ held, free })).toBeGreaterThan(0.5);
    expect(held.a).toBeGreaterThan(0.9);
    // ...and B is learnt all the same, so the penalty holds what A needs, not everything.
    expect(held.b).toBeGreaterThan(0.9);
    expect(free.b).toBeGreaterThan(0.9);
  });

  it('without a model it fails permanently, saying what to run first', async () => {
    await expect(
      createEwcConsolidationHandler(storesOf(bullpen))(
        makeJobContext('ewc-consolidation', { modelName: 'nothing', lambda: 10, sampleSize: 10 }),
      ),
    ).rejects.toBeInstanceOf(PermanentError);
  });
});
