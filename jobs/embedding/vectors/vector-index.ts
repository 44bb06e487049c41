import type { Tenant } from '@/lib/jobs/tenant';
import type { Logger } from '@/lib/logging/logger';
import { AnnGraph, type AnnGraphOptions } from './ann-graph';
import type { IndexEntry, LogEntry, VectorStore } from './vector-store';

export interface VectorMatch {
  id: string;
  /** Cosine similarity to the query, 1 for the same direction. */
  similarity: number;
}

export interface SearchOptions {
  /** Only this tenant's vectors (a workspace narrows it). */
  tenant?: Tenant;
}

export interface VectorIndexOptions {
  /** Passed to every shard's graph. */
  graph?: Omit<AnnGraphOptions, 'dimensions'>;
  /**
   * Vectors read from Redis per round trip while loading.
   * @defaultValue 500
   */
  loadBatchSize?: number;
  logger?: Logger;
}

interface Member {
  id: string;
  shard: number;
  orgId?: string;
  workspaceId?: string;
}

/** One complete view of a namespace: its graphs and who is in them. Replaced whole by a rebuild. */
interface Snapshot {
  generation: number;
  shards: number;
  /** Last change-log entry applied. */
  seq: number;
  model?: string;
  graphs: AnnGraph[];
  members: Map<number, Member>;
}

/**
 * The in-memory ANN index of one namespace, one usearch graph per shard, kept in step
 * with Redis. Loaded from the vectors on first use; before each search it applies the
 * change log written since (one round trip when nothing changed). When the namespace's
 * generation moves on (an optimisation, a rebalance, a new model) it builds a fresh
 * snapshot in the background and swaps it in, and until then keeps answering from the
 * old one, which it still keeps current from the log: searches never wait on a rebuild
 * (only the very first load is awaited, as there is nothing to answer from before it).
 * Only vectors of the namespace's current model are indexed.
 */
export class VectorIndex {
  private current?: Snapshot;
  private loading?: Promise<void>;
  private building?: Promise<Snapshot>;
  private syncing?: Promise<void>;
  private readonly loadBatchSize: number;

  constructor(
    readonly namespace: string,
    private readonly store: VectorStore,
    private readonly opts: VectorIndexOptions = {},
  ) {
    this.loadBatchSize = opts.loadBatchSize ?? 500;
  }

  /** Whether a background rebuild is running. */
  get rebuilding(): boolean {
    return this.building !== undefined;
  }

  /** The loaded snapshot's generation and size (undefined before the first load). */
  get loaded(): { generation: number; seq: number; size: number } | undefined {
    const s = this.current;
    return s && { generation: s.generation, seq: s.seq, size: s.members.size };
  }

  /** The k nearest vectors to `query` by cosine similarity, most similar first. */
  async search(query: Float32Array, k: number, opts: SearchOptions = {}): Promise<VectorMatch[]> {
    await this.sync();
    const snap = this.current;
    if (!snap || snap.members.size === 0 || k < 1) return [];
    const dims = snap.graphs[0].dimensions;
    if (query.length !== dims) {
      throw new Error(`Namespace "${this.namespace}" holds ${dims}-d vectors; the query has ${query.length}`);
    }
    // A tenant filter drops others' vectors after the graph search: ask for more until
    // k are left or every vector has been considered.
    for (let want = opts.tenant ? k * 4 : k; ; want *= 4) {
      const merged = snap.graphs.flatMap((g) => g.search(query, want)).sort((a, b) => a.distance - b.distance);
      const out: VectorMatch[] = [];
      for (const m of merged) {
        const member = snap.members.get(m.label);
        if (!member || !matchesTenant(member, opts.tenant)) continue;
        out.push({ id: member.id, similarity: 1 - m.distance });
        if (out.length === k) return out;
      }
      if (want >= snap.members.size) return out;
    }
  }

  /**
   * Brings the snapshot up to date with Redis: loads it the first time, applies the
   * change log, and starts a background rebuild when the generation changed.
   */
  async sync(): Promise<void> {
    if (!this.current) {
      this.loading ??= this.build()
        .then((snap) => {
          this.current ??= snap;
        })
        .finally(() => {
          this.loading = undefined;
        });
      await this.loading;
    }
    // One sync at a time: two overlapping ones would apply the same entries twice.
    this.syncing ??= this.catchUp().finally(() => {
      this.syncing = undefined;
    });
    await this.syncing;
  }

  /**
   * Builds a new snapshot from the vectors while searches go on against the old one,
   * then swaps it in. Resolves when a snapshot of the namespace's current generation (or
   * a later one) serves searches: a build already running for an older generation is
   * awaited and followed by another.
   */
  async rebuild(): Promise<void> {
    if (!this.current) return this.sync();
    const { generation } = await this.store.position(this.namespace);
    do {
      this.building ??= this.build().then(
        async (fresh) => {
          // Changes made while the build ran are in the log after the build's own seq.
          await this.applyLog(fresh);
          this.current = fresh;
          this.building = undefined;
          return fresh;
        },
        (err) => {
          this.building = undefined;
          throw err;
        },
      );
      await this.building;
    } while (this.current.generation < generation);
  }

  private async catchUp(): Promise<void> {
    const snap = this.current!;
    const position = await this.store.position(this.namespace);
    if (position.generation !== snap.generation && !this.building) {
      void this.rebuild().catch((err) => this.opts.logger?.error({ err, namespace: this.namespace }, 'vector index rebuild failed'));
    }
    if (position.seq !== snap.seq) {
      const complete = (await this.applyLog(snap)) && snap.seq >= position.seq;
      if (!complete && !this.building) await this.rebuild();
    }
  }

  /**
   * Applies the change log after the snapshot's seq. Returns false when entries are
   * missing (the capped log moved past us): only a rebuild can catch up then.
   */
  private async applyLog(snap: Snapshot): Promise<boolean> {
    for (;;) {
      const entries = await this.store.readLog(this.namespace, snap.seq, 1_000);
      if (entries.length === 0) return true;
      if (entries[0].seq !== snap.seq + 1) return false;
      await this.apply(snap, entries);
      snap.seq = entries[entries.length - 1].seq;
      if (entries.length < 1_000) return true;
    }
  }

  private async apply(snap: Snapshot, entries: LogEntry[]): Promise<void> {
    // Fetch each added vector's current state once: a later entry may have replaced or deleted it.
    const added = [...new Set(entries.filter((e) => e.op === 'add').map((e) => e.id))];
    const current = new Map((await this.store.indexEntriesOf(this.namespace, added)).map((e) => [e.id, e]));
    for (const e of entries) {
      this.remove(snap, e.label);
      if (e.op === 'add') {
        const entry = current.get(e.id);
        if (entry && entry.label === e.label) this.add(snap, entry);
      }
    }
  }

  private async build(): Promise<Snapshot> {
    // Read the position first: anything written during the load is replayed from the log.
    const stats = await this.store.stats(this.namespace);
    const snap: Snapshot = {
      generation: stats.generation,
      shards: Math.max(1, stats.shards),
      seq: stats.seq,
      model: stats.model,
      graphs: [],
      members: new Map(),
    };
    let after = 0;
    for (;;) {
      const batch = await this.store.indexEntries(this.namespace, after, this.loadBatchSize);
      if (batch.length === 0) break;
      for (const entry of batch) {
        this.add(snap, entry);
      }
      after = batch[batch.length - 1].label;
    }
    this.opts.logger?.debug({ namespace: this.namespace, size: snap.members.size, generation: snap.generation }, 'vector index loaded');
    return snap;
  }

  private makeGraphs(snap: Snapshot, dimensions: number): void {
    snap.graphs = Array.from({ length: snap.shards }, () => new AnnGraph({ ...this.opts.graph, dimensions }));
  }

  private add(snap: Snapshot, entry: IndexEntry): void {
    if (snap.model === undefined) snap.model = entry.model;
    if (entry.model !== snap.model) return;
    // The first vector of the model fixes the graphs' dimensions (an empty namespace has none yet).
    if (snap.graphs.length === 0) this.makeGraphs(snap, entry.vector.length);
    if (entry.vector.length !== snap.graphs[0].dimensions) return;
    // A shard number beyond the graphs (shards are fixed per namespace, so only a
    // defensive case) falls back to the last graph rather than losing the vector.
    const shard = Math.min(entry.shard, snap.graphs.length - 1);
    snap.graphs[shard].upsert(entry.label, entry.vector);
    snap.members.set(entry.label, { id: entry.id, shard, orgId: entry.orgId, workspaceId: entry.workspaceId });
  }

  private remove(snap: Snapshot, label: number): void {
    const member = snap.members.get(label);
    if (!member) return;
    snap.graphs[member.shard]?.remove(label);
    snap.members.delete(label);
  }
}

function matchesTenant(member: Member, tenant: Tenant | undefined): boolean {
  if (!tenant) return true;
  if (member.orgId !== tenant.orgId) return false;
  return !tenant.workspaceId || member.workspaceId === tenant.workspaceId;
}
