import { fnv1a32 } from './hash';

/**
 * A seeded pseudo-random generator (mulberry32): the same seed gives the same numbers
 * on every run, which is what makes a retried training job produce the same model.
 * Not for anything secret.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A 32-bit seed from a string (FNV-1a), e.g. from a job id. */
export function seedFrom(text: string): number {
  return fnv1a32(text);
}
