import { createHash } from 'node:crypto';

/**
 * A replay with an edited payload is a new request (docs/dead-letters.md, "Replay keys"):
 * what identifies its side effects (an idempotency key, a webhook's delivery id) is the
 * original's id with the replay's job id appended (`replay-<dead letter>-<n>`, so it is
 * deterministic: a double click replays once). `id` is the original's, never an earlier
 * edited replay's: `previous` (the envelope's `editedReplay`) is taken off first, so the
 * ids of successive edits do not stack. An id that would pass `max` characters is hashed.
 */
export function editedReplayId(id: string, editedReplay: string, opts: { previous?: string; max: number }): string {
  const suffix = `:${opts.previous}`;
  const base = opts.previous && id.endsWith(suffix) ? id.slice(0, -suffix.length) : id;
  const derived = `${base}:${editedReplay}`;
  if (derived.length <= opts.max) return derived;
  return `replay:${createHash('sha256').update(base).digest('hex')}:${editedReplay}`.slice(0, opts.max);
}
