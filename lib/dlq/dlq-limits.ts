/** The most entries one bulk operation of the DLQ store (replay all, purge) takes. Client-safe. */
export const MAX_DLQ_BULK = 10_000;
