import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, startEmbeddedRedis, type EmbeddedRedis } from '@/lib/redis/embedded-server';
import { cli, cliAsync } from './redis-cluster';

/**
 * A Redis Cluster of three masters, each with one replica, on loopback: what a failover
 * test kills a master of. Beside tests/helpers/redis-cluster.ts (three masters, no
 * replica), whose users need no replica. Its queries run redis-cli asynchronously: a
 * test that polls them while it times its own Redis calls keeps its event loop free, so
 * what it measures is Redis's answer, not the wait for a blocked loop.
 */
export interface ReplicatedCluster {
  /** `host:port` of all six nodes, the seed list a client is given. */
  nodes: string[];
  /** `cluster-node-timeout` of every node: a master unreachable this long is failed over. */
  nodeTimeoutMs: number;
  /** The shards as a live node reports them (`CLUSTER SHARDS`); a failed node is never a shard's master. */
  shards(): Promise<ReplicatedShard[]>;
  /** The slot of a key (`CLUSTER KEYSLOT`). */
  keySlot(key: string): Promise<number>;
  /** The live master that serves a slot now; undefined while none does (between a master's failure and its replica's promotion). */
  masterOf(slot: number): Promise<string | undefined>;
  /** `CLUSTER INFO` of a node as key → value, `cluster_state` among them. */
  clusterInfo(node: string): Promise<Record<string, string>>;
  /** `INFO replication` of a node as key → value. */
  replicationInfo(node: string): Promise<Record<string, string>>;
  /** Sends SIGKILL to the redis-server of a node (the process this helper started) and returns its PID. */
  kill(node: string): number;
  /** Nodes not killed. */
  alive(): string[];
  stop(): Promise<void>;
}

export interface ReplicatedShard {
  master: string;
  replicas: string[];
  /** Inclusive `[first, last]` slot ranges. */
  ranges: Array<[number, number]>;
}

interface ShardReply {
  slots: number[];
  nodes: Array<{ ip: string; port: number; role: string; health: string }>;
}

function fields(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) out[line.slice(0, at)] = line.slice(at + 1).trim();
  }
  return out;
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Six cluster-enabled redis-servers (no AOF, no snapshots: a replica's copy is the only
 * other one) joined by `redis-cli --cluster create --cluster-replicas 1`: the first three are
 * the masters, each of the others replicates one of them. Resolves once every node
 * reports `cluster_state:ok` and every replica's link to its master is up and synced.
 */
export async function startReplicatedCluster(opts: { nodeTimeoutMs?: number } = {}): Promise<ReplicatedCluster> {
  const nodeTimeoutMs = opts.nodeTimeoutMs ?? 2_000;
  const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-failover-'));
  const servers = new Map<string, EmbeddedRedis>();
  const killed = new Set<string>();
  for (let i = 0; i < 6; i++) {
    const port = await freePort();
    // Its own directory: a replica's full sync writes the master's RDB to dump.rdb there.
    const nodeDir = path.join(dir, String(port));
    mkdirSync(nodeDir);
    const server = await startEmbeddedRedis({
      port,
      args: [
        '--dir',
        nodeDir,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        path.join(dir, `nodes-${port}.conf`),
        '--cluster-node-timeout',
        String(nodeTimeoutMs),
      ],
    });
    servers.set(`127.0.0.1:${port}`, server);
  }
  const nodes = [...servers.keys()];
  const stop = async () => {
    // A killed server has exited already: stop() would wait for an exit that came before.
    await Promise.all([...servers].filter(([node]) => !killed.has(node)).map(([, s]) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const created = spawnSync('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', '1', '--cluster-yes'], {
      encoding: 'utf8',
    });
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stderr || created.stdout}`);
    await until('cluster not ok on every node', () => nodes.every((n) => fields(cli(n, 'cluster', 'info')).cluster_state === 'ok'), 30_000);
    await until(
      'replicas not in sync',
      () =>
        nodes.filter((n) => fields(cli(n, 'info', 'replication')).role === 'slave').length === 3 &&
        nodes.every((n) => {
          const r = fields(cli(n, 'info', 'replication'));
          return r.role === 'master' || (r.master_link_status === 'up' && r.master_sync_in_progress === '0');
        }),
      30_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }

  const alive = () => nodes.filter((n) => !killed.has(n));
  const shards = async (): Promise<ReplicatedShard[]> => {
    const reply = JSON.parse(await cliAsync(alive()[0], '--json', 'cluster', 'shards')) as ShardReply[];
    return reply.flatMap((shard) => {
      const master = shard.nodes.find((n) => n.role === 'master' && n.health === 'online');
      // A replica that has not yet received a write reports `loading` (Redis 7.0): only `fail` is gone.
      if (!master || shard.slots.length === 0) return [];
      const ranges: Array<[number, number]> = [];
      for (let i = 0; i < shard.slots.length; i += 2) ranges.push([shard.slots[i], shard.slots[i + 1]]);
      const replicas = shard.nodes.filter((n) => n.role === 'replica' && n.health !== 'fail').map((n) => `${n.ip}:${n.port}`);
      return [{ master: `${master.ip}:${master.port}`, replicas, ranges }];
    });
  };
  return {
    nodes,
    nodeTimeoutMs,
    shards,
    keySlot: async (key) => Number((await cliAsync(alive()[0], 'cluster', 'keyslot', key)).trim()),
    masterOf: async (slot) => (await shards()).find((s) => s.ranges.some(([first, last]) => slot >= first && slot <= last))?.master,
    clusterInfo: async (node) => fields(await cliAsync(node, 'cluster', 'info')),
    replicationInfo: async (node) => fields(await cliAsync(node, 'info', 'replication')),
    kill: (node) => {
      const child = servers.get(node)?.child;
      if (!child?.pid) throw new Error(`${node} is not a node this helper started`);
      // startEmbeddedRedis execs redis-server in place of its shell: this PID is the server.
      child.kill('SIGKILL');
      killed.add(node);
      return child.pid;
    },
    alive,
    stop,
  };
}
