import { MAX_DLQ_BULK } from '@/lib/dlq/dlq-limits';

/*
 * The dead-letters page's limits, apart from the actions that enforce them so the
 * browser's bulk panel can show them without pulling the DLQ store into its bundle.
 */

/** Most entries one "selected" action takes: one page at the largest page size. */
export const MAX_SELECTED_DEAD_LETTERS = 200;
/** Entries handled per batch in the background operations. */
export const DLQ_BULK_BATCH = 100;
/** What "replay all that match" proposes when the operator does not choose. */
export const DEFAULT_REPLAY_ALL_LIMIT = 1_000;
/** The cap of one "replay all": the store's own maximum. */
export const MAX_REPLAY_ALL = MAX_DLQ_BULK;
