/** Milliseconds in the units job defaults are written in (`timeoutMs: 5 * MINUTE`). */
export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
