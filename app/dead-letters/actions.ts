'use server';

import { z } from 'zod';
import { runAction, type ActionSpec } from '@/dashboard/action';
import type { ActionResult } from '@/dashboard/client/action-result';
import { MAX_REPLAY_ALL, MAX_SELECTED_DEAD_LETTERS } from '@/dashboard/client/dead-letters-limits';
import {
  discardSelected,
  replaySelected,
  selectedEntrySchema,
  startPurge,
  startReplayAll,
  type SelectedOutcome,
} from '@/dashboard/dead-letters/dead-letters-bulk';
import { deadLetterIdSchema } from '@/lib/dlq/dead-letter-id';
import { awaitReplayOutcome, type ReplayResult } from '@/dashboard/dead-letters/dead-letters-replay-outcome';
import { describeFilters, parseDeadLetterFilters, withoutPaging } from '@/dashboard/client/dead-letters-filters';
import { MAX_PAYLOAD_TEXT, parseJsonText } from '@/dashboard/client/dead-letters-payload';
import { withPayloadFieldErrors } from '@/dashboard/payload-field-errors';
import { replayDeadLetter as replayOne } from '@/dashboard/dead-letters/dead-letters-replay';
import { AppError } from '@/lib/errors/app-error';
import type { DeadLetterActions } from '@/components/dead-letters/dlq-actions';
import type { BulkOperation } from '@/dashboard/live/bulk-runner';

/*
 * Dead-letter mutations, each through runAction: authorise (operator replays and
 * discards; admin purges and discards in bulk) → safeParse → lib → audit → revalidate.
 */

/** A filter as the page's URL carries it; refused when any part is unusable (never act on half a filter). */
const filterQuery = z
  .string()
  .max(2_000)
  .transform((qs, ctx) => {
    const parsed = parseDeadLetterFilters(new URLSearchParams(qs));
    if (parsed.ignored.length > 0) {
      ctx.addIssue({ code: 'custom', message: `unusable filter: ${parsed.ignored.map((i) => `${i.param} (${i.reason})`).join(', ')}` });
      return z.NEVER;
    }
    return withoutPaging(parsed.filters);
  });

const replaySchema = z
  .object({
    id: deadLetterIdSchema,
    /** The replay count the operator saw (a double click or a second operator replays once). */
    expectedReplays: z.number().int().min(0),
    /** Edited payload as JSON text; absent: the original payload. */
    payload: z.string().max(MAX_PAYLOAD_TEXT).optional(),
    /** A destructive type's typed confirmation: the org id (dashboard/jobs/job-start-rules.ts). */
    confirm: z.string().max(200).optional(),
  })
  .strict();

const idOnly = z.object({ id: deadLetterIdSchema }).strict();
const selectedSchema = z.object({ entries: z.array(selectedEntrySchema).min(1).max(MAX_SELECTED_DEAD_LETTERS) }).strict();
const idsSchema = z.object({ ids: z.array(deadLetterIdSchema).min(1).max(MAX_SELECTED_DEAD_LETTERS) }).strict();
const replayAllSchema = z.object({ filter: filterQuery, limit: z.number().int().min(1).max(MAX_REPLAY_ALL) }).strict();
const purgeSchema = z.object({ filter: filterQuery, confirm: z.literal('purge', 'type purge to confirm') }).strict();

const entryPaths = (id: string) => ['/dead-letters', `/dead-letters/${id}`];
const selectedTarget = (ids: string[]) => ({ kind: 'dead-letter', id: ids.length === 1 ? ids[0] : `${ids[0]} and ${ids.length - 1} more` });

const replaySpec: ActionSpec<typeof replaySchema, ReplayResult> = {
  name: 'dlq.replay',
  minRole: 'operator',
  schema: replaySchema,
  async run(input, { user, bullpen }) {
    let payload: unknown;
    if (input.payload !== undefined) {
      const json = parseJsonText(input.payload);
      if (!json.ok)
        throw new AppError('VALIDATION', `The payload is not valid JSON: ${json.message}`, { fieldErrors: { payload: [json.message] } });
      payload = json.value;
    }
    const entry = await withPayloadFieldErrors(() =>
      replayOne(
        bullpen,
        input.id,
        { by: user.username, expectedReplays: input.expectedReplays, payload },
        { role: user.role, confirm: input.confirm },
      ),
    );
    const last = entry.replays[entry.replays.length - 1];
    // Reported as it turned out: a job refused at once is a failed replay, not a green one.
    const outcome = await awaitReplayOutcome(bullpen, entry, last.newJobId);
    return { id: entry.id, jobId: last.newJobId, edited: last.edited, outcome };
  },
  audit: (input, d) => ({
    target: { kind: 'dead-letter', id: input.id },
    details: { jobId: d.jobId, edited: d.edited, outcome: d.outcome.state },
  }),
  revalidate: (input) => entryPaths(input.id),
};

const discardSpec: ActionSpec<typeof idOnly, { id: string }> = {
  name: 'dlq.discard',
  minRole: 'operator',
  schema: idOnly,
  run: async (input, { user, bullpen }) => ({ id: (await bullpen.dlq.discard(input.id, user.username)).id }),
  audit: (input) => ({ target: { kind: 'dead-letter', id: input.id } }),
  revalidate: (input) => entryPaths(input.id),
};

const replaySelectedSpec: ActionSpec<typeof selectedSchema, SelectedOutcome> = {
  name: 'dlq.replay-selected',
  minRole: 'operator',
  schema: selectedSchema,
  run: (input, { user, bullpen }) => replaySelected(bullpen, input.entries, user.username),
  audit: (input, out) => ({
    target: selectedTarget(input.entries.map((e) => e.id)),
    details: { replayed: out.done, skipped: out.skipped.length, failed: out.failed.length },
  }),
  revalidate: () => ['/dead-letters'],
};

const discardSelectedSpec: ActionSpec<typeof idsSchema, SelectedOutcome> = {
  name: 'dlq.discard-selected',
  minRole: 'admin',
  schema: idsSchema,
  run: (input, { user, bullpen }) => discardSelected(bullpen, input.ids, user.username),
  audit: (input, out) => ({
    target: selectedTarget(input.ids),
    details: { discarded: out.done, skipped: out.skipped.length, failed: out.failed.length },
  }),
  revalidate: () => ['/dead-letters'],
};

const replayAllSpec: ActionSpec<typeof replayAllSchema, BulkOperation> = {
  name: 'dlq.replay-all',
  minRole: 'operator',
  schema: replayAllSchema,
  async run(input, { user, bullpen, bulk }) {
    const { operation } = await startReplayAll(bullpen, bulk, input.filter, {
      by: user.username,
      limit: input.limit,
      now: Date.now(),
    });
    return operation;
  },
  audit: (input, d) => ({
    target: { kind: 'dead-letters', id: describeFilters({ ...input.filter, status: input.filter.status ?? 'pending' }) },
    details: { operation: d.id, limit: input.limit, total: d.total },
  }),
  revalidate: () => ['/dead-letters'],
};

const purgeSpec: ActionSpec<typeof purgeSchema, BulkOperation> = {
  name: 'dlq.purge',
  minRole: 'admin',
  schema: purgeSchema,
  async run(input, { user, bullpen, bulk }) {
    const { operation } = await startPurge(bullpen, bulk, input.filter, { by: user.username, now: Date.now() });
    return operation;
  },
  audit: (input, d) => ({
    target: { kind: 'dead-letters', id: describeFilters(input.filter) },
    details: { operation: d.id, total: d.total },
  }),
  revalidate: () => ['/dead-letters'],
};

export async function replayDeadLetter(input: Parameters<DeadLetterActions['replay']>[0]): Promise<ActionResult<ReplayResult>> {
  return runAction(replaySpec, input);
}
export async function discardDeadLetter(input: { id: string }): Promise<ActionResult<{ id: string }>> {
  return runAction(discardSpec, input);
}
export async function replaySelectedDeadLetters(
  input: Parameters<DeadLetterActions['replaySelected']>[0],
): Promise<ActionResult<SelectedOutcome>> {
  return runAction(replaySelectedSpec, input);
}
export async function discardSelectedDeadLetters(input: { ids: string[] }): Promise<ActionResult<SelectedOutcome>> {
  return runAction(discardSelectedSpec, input);
}
export async function replayAllDeadLetters(input: { filter: string; limit: number }): Promise<ActionResult<BulkOperation>> {
  return runAction(replayAllSpec, input);
}
export async function purgeDeadLetters(input: { filter: string; confirm: string }): Promise<ActionResult<BulkOperation>> {
  return runAction(purgeSpec, input);
}
