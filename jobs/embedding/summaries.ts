import type { JobOutcome } from '@/lib/jobs/job-definition';
import { plural } from '@/lib/text/plural';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/**
 * embedding-batch completes while some batches failed (each is in the namespace's
 * failure log) and refuses items naming another tenant's memory: say so, not just
 * "completed".
 */
export function summarizeEmbeddingBatch(result: unknown): JobOutcome | undefined {
  if (!isRecord(result) || typeof result.items !== 'number') return undefined;
  const failed = list(result.failedBatches);
  const failedItems = failed.reduce<number>((n, b) => n + (isRecord(b) ? list(b.ids).length : 0), 0);
  const refused = list(result.refused).length;
  const parts = [`${count(result.embedded).toLocaleString('en')} of ${plural(count(result.items), 'item')} embedded`];
  if (count(result.unchanged) > 0) parts.push(`${count(result.unchanged).toLocaleString('en')} unchanged`);
  if (failed.length > 0) parts.push(`${plural(failed.length, 'batch', 'batches')} failed (${plural(failedItems, 'item')})`);
  if (refused > 0) parts.push(`${plural(refused, 'item')} refused (another tenant's memory)`);
  return { text: parts.join(', '), partial: failed.length > 0 || refused > 0 };
}

/** embedding-reindex: how much of the namespace it re-embedded, and whether it switched models. */
export function summarizeEmbeddingReindex(result: unknown): JobOutcome | undefined {
  if (!isRecord(result) || typeof result.scanned !== 'number') return undefined;
  const switched = typeof result.previousModel === 'string' ? `, switched from ${result.previousModel} to ${String(result.model)}` : '';
  return {
    text: `${count(result.reembedded).toLocaleString('en')} of ${plural(count(result.scanned), 'vector')} re-embedded${switched}`,
    partial: false,
  };
}
