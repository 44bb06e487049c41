import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, truncate } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';

/**
 * Durable JSONL file operations for archives: appends that are on disk when they
 * return, recovery of a torn tail after a crash, and rewrites that replace a file
 * atomically. No Redis, no knowledge of sessions.
 */

/** Appends `text` (whole lines) and fsyncs the file, and its directory when the file is new. */
export async function appendDurably(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const isNew = (await sizeOf(file)) === undefined;
  const fh = await open(file, 'a');
  try {
    await fh.write(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  // A new file's directory entry is only durable once the directory itself is synced.
  if (isNew) await syncDir(path.dirname(file));
}

/** The file's size in bytes, or undefined when it does not exist. */
export async function sizeOf(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * The complete lines written after byte `offset`, parsed; a torn last line (a crash
 * mid-write) is cut off the file, so the next append starts on a line boundary.
 */
export async function recoverTail(file: string, offset: number): Promise<unknown[]> {
  const size = await sizeOf(file);
  if (size === undefined || size <= offset) return [];
  const fh = await open(file, 'r');
  let tail: Buffer;
  try {
    tail = Buffer.alloc(size - offset);
    await fh.read(tail, 0, tail.length, offset);
  } finally {
    await fh.close();
  }
  const lastNewline = tail.lastIndexOf(0x0a);
  const complete = lastNewline + 1;
  if (complete < tail.length) await truncate(file, offset + complete);
  return tail
    .subarray(0, complete)
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as unknown);
}

/** The parsed lines of a JSONL file, streamed. */
export async function* readJsonLines(file: string): AsyncIterable<unknown> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) if (line) yield JSON.parse(line) as unknown;
}

/** `.jsonl` files directly in `dir`, sorted by name; none when it does not exist. */
export async function listJsonlFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir))
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
      .map((f) => path.join(dir, f));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/**
 * Rewrites a file without the lines `drop` selects, through a synced temporary file and
 * a rename, so a crash leaves either the old file or the new one. An emptied file is
 * removed. Returns how many lines were dropped.
 */
export async function rewriteWithout(file: string, drop: (line: unknown) => boolean): Promise<number> {
  const tmp = `${file}.rewrite-${process.pid}.tmp`;
  let dropped = 0;
  let kept = 0;
  const fh = await open(tmp, 'w');
  try {
    let chunk = '';
    for await (const line of readJsonLines(file)) {
      if (drop(line)) {
        dropped++;
        continue;
      }
      kept++;
      chunk += `${JSON.stringify(line)}\n`;
      if (chunk.length > 64 * 1024) {
        await fh.write(chunk);
        chunk = '';
      }
    }
    await fh.write(chunk);
    await fh.sync();
  } finally {
    await fh.close();
  }
  if (dropped === 0) {
    await rm(tmp, { force: true });
  } else if (kept === 0) {
    await rm(tmp, { force: true });
    await rm(file, { force: true });
  } else {
    await rename(tmp, file);
  }
  await syncDir(path.dirname(file));
  return dropped;
}

export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
