import { createHash } from 'node:crypto';

/**
 * The two hashes the job groups derive ids, seeds and shards from, so each is written
 * once: both are stable across processes, versions and hosts, unlike a language's own
 * hash, which is what lets a retried or replayed job find what its first run wrote.
 */

/** 32-bit FNV-1a: a fast, well-spread number for shards, features and seeds. Not for ids. */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The first 128 bits of SHA-256, in hex: an id or fingerprint no two inputs share in practice. */
export function digest32(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}
