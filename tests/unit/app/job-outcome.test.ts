import type { Job } from 'bullmq';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { summarizeEmbeddingBatch, summarizeEmbeddingReindex } from '@/jobs/embedding/summaries';
import { formatJob } from '@/dashboard/jobs/job-summary';
import { JobCatalog } from '@/lib/jobs/job-catalog';
import { defineJob } from '@/lib/jobs/job-definition';

const batchResult = (over: Record<string, unknown> = {}) => ({
  namespace: 'notes',
  model: 'm',
  items: 70,
  embedded: 38,
  unchanged: 0,
  linked: 0,
  refused: [],
  failedBatches: [{ batch: 1, ids: Array.from({ length: 32 }, (_, i) => `i${i}`), error: 'HTTP 400', errorClass: 'client' }],
  ...over,
});

describe("a completed job's own summary", () => {
  it('says when an embedding batch completed with failed batches or refused items', () => {
    expect(summarizeEmbeddingBatch(batchResult())).toEqual({ text: '38 of 70 items embedded, 1 batch failed (32 items)', partial: true });
    expect(summarizeEmbeddingBatch(batchResult({ failedBatches: [], refused: ['x'], embedded: 69 }))).toEqual({
      text: "69 of 70 items embedded, 1 item refused (another tenant's memory)",
      partial: true,
    });
    expect(summarizeEmbeddingBatch(batchResult({ failedBatches: [], embedded: 60, unchanged: 10 }))).toEqual({
      text: '60 of 70 items embedded, 10 unchanged',
      partial: false,
    });
    expect(summarizeEmbeddingReindex({ scanned: 5, reembedded: 2, model: 'b', previousModel: 'a' })).toEqual({
      text: '2 of 5 vectors re-embedded, switched from a to b',
      partial: false,
    });
  });

  it('says nothing about a result of another shape (an older build, another producer)', () => {
    for (const odd of [null, 'ok', 42, [], { embedded: 3 }]) {
      expect(summarizeEmbeddingBatch(odd)).toBeUndefined();
      expect(summarizeEmbeddingReindex(odd)).toBeUndefined();
    }
  });

  it('is read through the catalog, which survives a summary that throws and cuts a long one', () => {
    const jobs = new JobCatalog([
      defineJob({
        name: 'long',
        group: 'g',
        description: 'd',
        schema: z.object({}),
        example: {},
        attempts: 1,
        backoff: { type: 'fixed', delayMs: 1 },
        timeoutMs: 1,
        summarize: (r) => ({ text: 'x'.repeat(1000), partial: (r as { p?: boolean }).p === true }),
      }),
      defineJob({
        name: 'throws',
        group: 'g',
        description: 'd',
        schema: z.object({}),
        example: {},
        attempts: 1,
        backoff: { type: 'fixed', delayMs: 1 },
        timeoutMs: 1,
        summarize: () => {
          throw new Error('unexpected shape');
        },
      }),
    ]);
    expect(jobs.outcomeOf('long', { p: true })).toEqual({ text: 'x'.repeat(300), partial: true });
    expect(jobs.outcomeOf('throws', {})).toBeUndefined();
    expect(jobs.outcomeOf('unknown-type', {})).toBeUndefined();
    expect(jobs.outcomeOf('long', null)).toBeUndefined();
  });

  it('shows on a completed job only: a failed job has a reason, not a result summary', () => {
    const reader = { outcomeOf: () => ({ text: 'half done', partial: true }) };
    const job = (over: Record<string, unknown>) => ({ id: '1', name: 'n', data: {}, opts: {}, timestamp: 1, ...over }) as unknown as Job;
    expect(formatJob(job({ finishedOn: 2, returnvalue: {} }), 'q', 'completed', reader).outcome).toEqual({
      text: 'half done',
      partial: true,
    });
    expect(formatJob(job({ finishedOn: 2, failedReason: 'boom' }), 'q', 'failed', reader).outcome).toBeUndefined();
    expect(formatJob(job({}), 'q', 'waiting', reader).outcome).toBeUndefined();
  });
});
