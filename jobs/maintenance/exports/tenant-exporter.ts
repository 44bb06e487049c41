import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { resolveInside } from '@/lib/fs/resolve-inside';
import type { Tenant } from '@/lib/jobs/tenant';
import { syncDir } from '../../session/sessions/jsonl-files';
import {
  exportManifestSchema,
  exportProgressSchema,
  type ExportedStore,
  type ExportManifest,
  type ExportProgress,
} from './export-manifest';
import { digest32 } from '../../shared/hash';

/** One file of an export: a name and the records to write. */
export interface ExportSource {
  name: string;
  records(): AsyncIterable<Record<string, unknown>>;
}

export interface ExportRequest {
  /** Directory name; derived from the job id so every attempt writes to the same place. */
  exportId: string;
  kind: ExportManifest['kind'];
  tenant: Tenant;
  jobId: string;
  sources: readonly ExportSource[];
  now: number;
  range?: ExportManifest['range'];
  signal?: AbortSignal;
  /** After each store: how many are done of how many, and the one just written. */
  onProgress?(done: number, total: number, store: string, records: number): Promise<void>;
}

/** Bytes buffered before a write: few syscalls, bounded memory. */
const CHUNK_BYTES = 256 * 1024;

/** An export directory name from a job id (kept when already safe, else hashed). */
export function exportIdFor(kind: string, jobId: string): string {
  const safe = /^[A-Za-z0-9_.-]{1,100}$/.test(jobId) ? jobId : digest32(jobId);
  return `${kind}-${safe}`;
}

/**
 * Writes a tenant's data as JSONL files under `<root>/<orgId>/<exportId>/`, one file per
 * store, each through a synced temporary file and a rename, then a manifest with counts
 * and checksums. `progress.json` lists the stores already renamed into place, so a
 * retried job continues where the failed attempt stopped instead of starting over, and
 * never leaves half a file under a final name. A finished export is returned as is.
 */
export class TenantExporter {
  constructor(
    /** `<dataDir>/exports`. */
    readonly root: string,
  ) {}

  static rootFor(dataDir: string): string {
    return path.join(dataDir, 'exports');
  }

  dirOf(orgId: string, exportId: string): string {
    return resolveInside(this.root, orgId, exportId);
  }

  async run(req: ExportRequest): Promise<{ manifest: ExportManifest; dir: string; resumed: boolean }> {
    const dir = this.dirOf(req.tenant.orgId, req.exportId);
    const finished = await readJson(path.join(dir, 'manifest.json'));
    if (finished) return { manifest: exportManifestSchema.parse(finished), dir, resumed: true };

    await mkdir(dir, { recursive: true });
    const saved = await readJson(path.join(dir, 'progress.json'));
    const progress: ExportProgress = saved
      ? exportProgressSchema.parse(saved)
      : {
          exportId: req.exportId,
          kind: req.kind,
          tenant: req.tenant,
          jobId: req.jobId,
          startedAt: req.now,
          ...(req.range ? { range: req.range } : {}),
          done: {},
        };
    const resumed = Object.keys(progress.done).length > 0;
    if (!saved) await writeAtomically(path.join(dir, 'progress.json'), progress);

    const total = req.sources.length;
    for (const [i, source] of req.sources.entries()) {
      if (progress.done[source.name]) continue;
      req.signal?.throwIfAborted();
      progress.done[source.name] = await this.writeStore(dir, source, req.signal);
      await writeAtomically(path.join(dir, 'progress.json'), progress);
      await req.onProgress?.(i + 1, total, source.name, progress.done[source.name].records);
    }

    const { done, ...meta } = progress;
    const manifest: ExportManifest = {
      ...meta,
      completedAt: req.now,
      stores: done,
      totalRecords: Object.values(done).reduce((n, s) => n + s.records, 0),
    };
    await writeAtomically(path.join(dir, 'manifest.json'), manifest);
    await rm(path.join(dir, 'progress.json'), { force: true });
    return { manifest, dir, resumed };
  }

  private async writeStore(dir: string, source: ExportSource, signal?: AbortSignal): Promise<ExportedStore> {
    const file = `${source.name}.jsonl`;
    const tmp = path.join(dir, `${file}.tmp`);
    const hash = createHash('sha256');
    let records = 0;
    let bytes = 0;
    const fh = await open(tmp, 'w');
    try {
      let chunk = '';
      const flush = async () => {
        if (!chunk) return;
        const buf = Buffer.from(chunk, 'utf8');
        hash.update(buf);
        bytes += buf.length;
        await fh.write(buf);
        chunk = '';
      };
      for await (const record of source.records()) {
        chunk += `${JSON.stringify(record)}\n`;
        records++;
        if (chunk.length >= CHUNK_BYTES) {
          signal?.throwIfAborted();
          await flush();
        }
      }
      await flush();
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path.join(dir, file));
    await syncDir(dir);
    return { file, records, bytes, sha256: hash.digest('hex') };
  }
}

async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as unknown;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes JSON through a synced temporary file and a rename. */
export async function writeAtomically(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.tmp`;
  await writeFile(tmp, `${JSON.stringify(value, null, 2)}\n`, { flush: true });
  await rename(tmp, file);
  await syncDir(path.dirname(file));
}
